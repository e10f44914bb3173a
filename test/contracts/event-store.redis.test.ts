/**
 * The EventStore contract against RedisEventStore on a real redis-server (test/helpers/redis.ts),
 * including what only Redis has: key TTLs and a backend that goes down and comes back.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { RedisEventStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { connectTestClient } from '../helpers/redis-client.js';
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
      const { client, keyTtls, backend, close } = await connectTestClient(redis);
      const store = new RedisEventStore({
        client,
        namespace: `t${++namespaces}`,
        maxEventsPerStream: bounds.maxEventsPerStream,
        maxBytesPerStream: bounds.maxBytes,
        maxAgeMs: bounds.maxAgeMs,
        commandTimeoutMs: 1_000,
      });
      return {
        store,
        // What Redis does to a key under maxmemory (or when its TTL runs out): the stream is gone.
        loseLiveStream: async (streamId) => void (await client.del(store.keysOf(streamId)[0])),
        advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        keyTtls,
        backend,
        close,
      };
    },
    { keys: true, backend: true },
  );
});
