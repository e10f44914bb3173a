/**
 * `redisBackplane()`: everything several Keel processes share (relay, session records, event log)
 * on one Redis client.
 */
import type { Logger } from '../../core/engine/connection-types.js';
import type { Backplane } from '../../hosts/http/cluster/backplane.js';
import { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
import type { RedisRelayClient } from './relay-client.js';
import { RedisRelay } from './relay.js';
import { RedisSessionStore, type RedisSessionClient } from './session-store.js';

/**
 * Every command the relay, the session store and the event store send (the relay's `del` is the
 * event store's too): a node-redis client (`createClient()` from `@redis/client` 5 or 6, or
 * `redis`) fits.
 *
 * @example
 * const client: RedisBackplaneClient = createClient({ url, disableOfflineQueue: true });
 */
export type RedisBackplaneClient = RedisRelayClient & RedisSessionClient;

/**
 * @example
 * redisBackplane({ client, namespace: 'weather', heartbeatMs: 500, events: { maxEventsPerStream: 500 } });
 */
export interface RedisBackplaneOptions {
  /**
   * A connected client with an `'error'` listener (node-redis emits connection errors there; with
   * none, Node ends the process), best created with `disableOfflineQueue: true` so commands fail
   * at once while Redis is down. The relay makes its own subscriber connection from it
   * (`duplicate()`); closing the client stays the caller's job, after `handler.close()`.
   */
  client: RedisBackplaneClient;
  /** Every key and channel is `keel:<namespace>:...`. Letters, digits, `.`, `_`, `-`. Default `'default'`. */
  namespace?: string;
  /** How often each process refreshes its liveness key. Default 1,000 ms. */
  heartbeatMs?: number;
  /**
   * A process that stops refreshing reads as gone after this long (the others then drop its
   * sessions). Default 5 × `heartbeatMs`: a GC pause or a CPU-bound tool of a few seconds must
   * not make a running process "dead".
   */
  livenessTtlMs?: number;
  /** Every command fails with `StoreUnavailableError` after this long. Default 2,000 ms. */
  commandTimeoutMs?: number;
  /**
   * The resumability log. Default: a {@link RedisEventStore} (resuming works on any process);
   * an object: its options; `false`: none here (the handler's `eventStore` option, else memory).
   */
  events?: false | Omit<RedisEventStoreOptions, 'client' | 'namespace' | 'commandTimeoutMs'>;
  /** Told about relay trouble: failed heartbeats, dropped connections. */
  logger?: Logger;
}

/**
 * The `backplane` for `createHttpHandler` on every process of a deployment: a {@link RedisRelay},
 * a {@link RedisSessionStore} and (unless `events: false`) a {@link RedisEventStore}, sharing one
 * client and namespace. The handler owns the relay: it listens at once and closes it in
 * `handler.close()`.
 *
 * @example
 * import { createClient } from '@redis/client';
 * import { redisBackplane } from 'keel-mcp/redis';
 * const client = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true });
 * client.on('error', (e) => console.error('redis', e.message));
 * await client.connect();
 * const backplane = redisBackplane({ client, namespace: 'weather' }); // relay + sessions + events
 * const handler = createHttpHandler(server, { backplane });
 * // shutdown: await handler.close(); await client.close();
 */
export function redisBackplane(options: RedisBackplaneOptions): Backplane & {
  readonly relay: RedisRelay;
  readonly sessions: RedisSessionStore;
  readonly events?: RedisEventStore;
} {
  const { client, namespace, commandTimeoutMs } = options;
  const relay = new RedisRelay({
    client,
    namespace,
    commandTimeoutMs,
    heartbeatMs: options.heartbeatMs,
    ttlMs: options.livenessTtlMs,
    logger: options.logger,
  });
  const sessions = new RedisSessionStore({ client, namespace, commandTimeoutMs });
  if (options.events === false) return { relay, sessions };
  const events = new RedisEventStore({ ...options.events, client, namespace, commandTimeoutMs });
  return { relay, sessions, events };
}
