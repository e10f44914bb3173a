/**
 * The EventStore contract against RedisEventStore on a real redis-server (test/helpers/redis.ts),
 * plus what only Redis has: key TTLs and a backend that goes down and comes back.
 */
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe } from 'vitest';
import { RedisEventStore } from '../../src/adapters/redis/index.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { eventStoreContract } from './event-store.contract.js';

useProcessGuard();

describe.skipIf(!redisAvailable())('RedisEventStore', () => {
  let redis: TestRedis;
  let namespaces = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  eventStoreContract(
    'RedisEventStore',
    async (bounds) => {
      const errors: unknown[] = [];
      const client = createClient({
        url: redis.url,
        disableOfflineQueue: true,
        // node-redis's own per-command timeout is an AbortSignal.timeout: an unref'd timer that
        // cannot be cleared and outlives each command by up to 5 s (the process guard sees it).
        // The store bounds every command with its own, cleared, timer instead.
        commandOptions: { timeout: 0 },
        socket: { connectTimeout: 1_000, reconnectStrategy: (retries) => Math.min(20 * 2 ** retries, 200) },
      });
      // node-redis reports connection trouble here; without a listener Node would end the process.
      client.on('error', (error: unknown) => errors.push(error));
      await client.connect();
      await client.flushAll();
      const namespace = `t${++namespaces}`;
      const store = new RedisEventStore({
        client,
        namespace,
        maxEventsPerStream: bounds.maxEventsPerStream,
        maxBytesPerStream: bounds.maxBytes,
        maxAgeMs: bounds.maxAgeMs,
        commandTimeoutMs: 1_000,
      });
      const ready = () =>
        client.isReady
          ? Promise.resolve()
          : new Promise<void>((resolve) => client.once('ready', () => resolve()));
      return {
        store,
        // What Redis does to a key under maxmemory (or when its TTL runs out): the stream is gone.
        loseLiveStream: async (streamId) => void (await client.del(store.keysOf(streamId)[0])),
        advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        keyTtls: async () => {
          const ttls = new Map<string, number>();
          for await (const keys of client.scanIterator({ MATCH: 'keel:*', COUNT: 100 })) {
            for (const key of keys) ttls.set(key, await client.pTTL(key));
          }
          return ttls;
        },
        backend: {
          stop: () => redis.kill(),
          start: async () => {
            await redis.start();
            await within(ready(), 10_000, 'client reconnect');
          },
        },
        close: async () => {
          if (client.isReady) await client.close();
          else client.destroy();
        },
      };
    },
    { keys: true, backend: true },
  );
});
