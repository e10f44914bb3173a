/**
 * A node-redis client for tests against test/helpers/redis.ts: fails fast while Redis is down,
 * reconnects quickly, never ends the process on a connection error, and leaves no timer behind.
 */
import { createClient } from '@redis/client';
import { within } from './guard.js';
import type { TestRedis } from './redis.js';

function create(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    // node-redis's own per-command timeout is an AbortSignal.timeout: an unref'd timer that
    // cannot be cleared and outlives each command by up to 5 s (the process guard sees it).
    // The stores bound every command with their own, cleared, timer instead.
    commandOptions: { timeout: 0 },
    socket: { connectTimeout: 1_000, reconnectStrategy: (retries) => Math.min(20 * 2 ** retries, 200) },
  });
}

export type TestRedisClient = ReturnType<typeof create>;

export interface ConnectedClient {
  client: TestRedisClient;
  /** Connection errors node-redis reported (it emits them; without a listener Node would exit). */
  errors: unknown[];
  /** Every `keel:*` key with its TTL in ms (-1 = none). */
  keyTtls: () => Promise<Map<string, number>>;
  /** `redis.kill()` / `redis.start()`, the latter resolving once the client is ready again. */
  backend: { stop: () => Promise<void>; start: () => Promise<void> };
  close: () => Promise<void>;
}

/** Connect to `redis` and empty it (every test starts from no keys). */
export async function connectTestClient(redis: TestRedis): Promise<ConnectedClient> {
  const errors: unknown[] = [];
  const client = create(redis.url);
  client.on('error', (error: unknown) => errors.push(error));
  await client.connect();
  await client.flushAll();
  const ready = () =>
    client.isReady
      ? Promise.resolve()
      : new Promise<void>((resolve) => client.once('ready', () => resolve()));
  return {
    client,
    errors,
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
}
