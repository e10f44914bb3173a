/**
 * The examples' Redis wiring (issue 12): with `REDIS_URL` set, a node-redis client and
 * `redisBackplane` so that several processes serve the same sessions; without it, nothing.
 */
import { createClient } from '@redis/client';
import { redisBackplane } from '../src/adapters/redis/index.js';
import type { Backplane } from '../src/hosts/http/index.js';

/** What `backplaneFromEnv` gives: the backplane (absent without `REDIS_URL`) and its client's close. */
export interface EnvBackplane {
  readonly backplane: Backplane | undefined;
  /** Close the Redis client (after `handler.close()`); bounded by node-redis's own close. */
  readonly close: () => Promise<void>;
}

/**
 * A backplane on `REDIS_URL` under `namespace`, or none when `REDIS_URL` is not set.
 *
 * @example
 * const { backplane, close } = await backplaneFromEnv('fixture', (m) => console.error(m));
 * const serving = await serveHttp(server, { backplane });
 * // shutdown: await serving.close(); await close();
 */
export async function backplaneFromEnv(
  namespace: string,
  report: (message: string) => void,
): Promise<EnvBackplane> {
  const url = process.env.REDIS_URL;
  if (!url) return { backplane: undefined, close: () => Promise.resolve() };
  // Fail fast while Redis is down (no offline queue): a request that needs it gets a clear 503
  // instead of waiting; node-redis reconnects by itself.
  const client = createClient({ url, disableOfflineQueue: true });
  // Without an 'error' listener a lost connection would end the process.
  client.on('error', (error: unknown) =>
    report(`redis: ${error instanceof Error ? error.message : String(error)}`),
  );
  await client.connect();
  return {
    backplane: redisBackplane({ client, namespace }),
    close: async () => {
      if (client.isOpen) await client.close();
    },
  };
}
