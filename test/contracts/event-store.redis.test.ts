/**
 * The EventStore contract against RedisEventStore on a real redis-server (test/helpers/redis.ts),
 * including what only Redis has: key TTLs and a backend that goes down and comes back.
 */
import { describe } from 'vitest';
import { RedisEventStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { connectTestClient } from '../helpers/redis-client.js';
import { redisAvailable } from '../helpers/redis.js';
import { useTestRedis } from './redis-harness.js';
import { eventStoreContract } from './event-store.contract.js';

useProcessGuard();

describe.skipIf(!redisAvailable())('RedisEventStore', () => {
  const redis = useTestRedis('t');

  eventStoreContract(
    'RedisEventStore',
    async (bounds) => {
      const { client, keyTtls, backend, close } = await connectTestClient(redis.server());
      const store = new RedisEventStore({
        client,
        namespace: redis.namespace(),
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
