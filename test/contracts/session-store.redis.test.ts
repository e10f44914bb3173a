/** The SessionStore contract against RedisSessionStore on a real redis-server (server clock). */
import { afterAll, beforeAll, describe } from 'vitest';
import { RedisSessionStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { connectTestClient } from '../helpers/redis-client.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { sessionStoreContract } from './session-store.contract.js';

useProcessGuard();

describe.skipIf(!redisAvailable())('RedisSessionStore', () => {
  let redis: TestRedis;
  let namespaces = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  sessionStoreContract(
    'RedisSessionStore',
    async () => {
      const { client, keyTtls, backend, close } = await connectTestClient(redis);
      return {
        store: new RedisSessionStore({ client, namespace: `s${++namespaces}`, commandTimeoutMs: 1_000 }),
        // Real time: a unit big enough that a busy machine does not eat the margins (1.5 units).
        unitMs: 500,
        advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        keyTtls,
        backend,
        close,
      };
    },
    { keys: true, backend: true },
  );
});
