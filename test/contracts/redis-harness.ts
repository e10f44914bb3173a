/**
 * The store contracts on a real redis-server (its clock is real time): one server per test file,
 * one client and namespace per harness.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { connectTestClient, type TestRedisClient } from '../helpers/redis-client.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import type { StoreHarness } from './store-harness.js';

/**
 * Call inside a `describe`: one redis-server for its tests (started before them, stopped after),
 * and a fresh namespace (`<prefix>1`, `<prefix>2`, ...) per harness so tests never share keys.
 */
export function useTestRedis(prefix: string): { server: () => TestRedis; namespace: () => string } {
  let redis: TestRedis | undefined;
  let namespaces = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return {
    server: () => {
      if (!redis) throw new Error('redis-server is not started yet (use it inside a test)');
      return redis;
    },
    namespace: () => `${prefix}${++namespaces}`,
  };
}

type Contract<Store> = (
  name: string,
  factory: () => Promise<StoreHarness<Store>>,
  options: { keys?: boolean; backend?: boolean },
) => void;

/**
 * Run `contract` against the store `makeStore` builds on a client, in namespaces `<prefix>1`,
 * `<prefix>2`, ...; `unitMs` large enough that the milliseconds between two commands (and a busy
 * machine) stay far below one unit. Skipped without redis-server (CI fails instead: see
 * test/helpers/redis.ts).
 */
export function onRedis<Store>(
  name: string,
  contract: Contract<Store>,
  makeStore: (client: TestRedisClient, namespace: string) => Store,
  options: { prefix: string; unitMs: number },
): void {
  describe.skipIf(!redisAvailable())(name, () => {
    const redis = useTestRedis(options.prefix);
    contract(
      name,
      async () => {
        const { client, keyTtls, backend, close } = await connectTestClient(redis.server());
        return {
          store: makeStore(client, redis.namespace()),
          unitMs: options.unitMs,
          advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          keyTtls,
          backend,
          close,
        };
      },
      { keys: true, backend: true },
    );
  });
}
