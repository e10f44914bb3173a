/** The StateStore contract against RedisStateStore on a real redis-server (server clock). */
import { afterAll, beforeAll, describe } from 'vitest';
import { RedisStateStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { connectTestClient } from '../helpers/redis-client.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { stateStoreContract } from './state-store.contract.js';

useProcessGuard();

describe.skipIf(!redisAvailable())('RedisStateStore', () => {
  let redis: TestRedis;
  let namespaces = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  stateStoreContract(
    'RedisStateStore',
    async () => {
      const { client, keyTtls, backend, close } = await connectTestClient(redis);
      return {
        store: new RedisStateStore({ client, namespace: `st${++namespaces}`, commandTimeoutMs: 1_000 }),
        // Real time (the Redis clock): a unit far above the few ms between two commands.
        unitMs: 60,
        advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        keyTtls,
        backend,
        close,
      };
    },
    { keys: true, backend: true },
  );
});
