/**
 * {@link EventStore} on Redis Streams: resumption works across processes that share one Redis.
 */
import type { JsonRpcMessage } from '../../core/jsonrpc.js';
import { StreamEvictedError, type EventStore } from '../../transports/http/server-wire/event-store.js';
import { atLeast, RedisAccess } from './redis-access.js';
import { LuaScript, type RedisScriptClient } from './script.js';
import { APPEND_SCRIPT, EVICTED_REPLY, FINISH_SCRIPT, REPLAY_SCRIPT } from './scripts.js';

/**
 * @example
 * new RedisEventStore({ client, namespace: 'prod', maxEventsPerStream: 200, commandTimeoutMs: 1_000 });
 */
export interface RedisEventStoreOptions {
  /**
   * A connected client with an `'error'` listener (node-redis emits connection errors there; with
   * none, Node ends the process). `disableOfflineQueue: true` makes commands fail at once while
   * Redis is down instead of waiting for the timeout, and stops a timed-out write from landing
   * later.
   */
  client: RedisEventStoreClient;
  /** Every key is `keel:<namespace>:...`. Letters, digits, `.`, `_`, `-`. Default `'default'`. */
  namespace?: string | undefined;
  /** Events kept per stream; older ones are dropped first. Default 100. */
  maxEventsPerStream?: number | undefined;
  /** Size of a stream's events (UTF-8 bytes of their JSON + 32 each); past it the oldest go. Default 1 MiB. */
  maxBytesPerStream?: number | undefined;
  /** How long an event stays resumable (and a finished stream is kept). Default 10 minutes. */
  maxAgeMs?: number | undefined;
  /** TTL of a live stream's keys, refreshed on every write. Default 1 hour. */
  ttlMs?: number | undefined;
  /** Every command fails with {@link StoreUnavailableError} after this long. Default 2,000 ms. */
  commandTimeoutMs?: number | undefined;
}

/**
 * The part of a Redis client the event store uses (scripts, and DEL to forget a stream):
 * node-redis (`@redis/client`, `redis`) clients fit.
 *
 * @example
 * const client: RedisEventStoreClient = createClient({ url, disableOfflineQueue: true });
 */
export interface RedisEventStoreClient extends RedisScriptClient {
  del(keys: string[]): Promise<unknown>;
}

const OVERHEAD = 32;
const STORE = 'redis event store';
const APPEND = new LuaScript(APPEND_SCRIPT);
const REPLAY = new LuaScript(REPLAY_SCRIPT);
const FINISH = new LuaScript(FINISH_SCRIPT);

/**
 * Event ids are `<streamId>_<redis entry id>`, so they are unique across streams and name their
 * stream. Bounds are per stream (count, bytes, age, all applied atomically on append); the
 * store-wide memory bound is Redis's own `maxmemory`. A live stream whose keys disappeared
 * (expired, or evicted by Redis under `maxmemory`) is refused with {@link StreamEvictedError}, as
 * the in-memory store does.
 *
 * @example
 * const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true })
 *   .on('error', (e) => logger.warn(e))
 *   .connect();
 * const handler = createHttpHandler(server, { eventStore: new RedisEventStore({ client, namespace: 'app' }) });
 */
export class RedisEventStore implements EventStore {
  private readonly redis: RedisAccess<RedisEventStoreClient>;
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  private readonly maxAgeMs: number;
  private readonly ttlMs: number;

  constructor(options: RedisEventStoreOptions) {
    this.redis = new RedisAccess('RedisEventStore', STORE, options);
    this.maxEvents = atLeast(options.maxEventsPerStream, 100);
    this.maxBytes = atLeast(options.maxBytesPerStream, 1024 * 1024);
    this.maxAgeMs = atLeast(options.maxAgeMs, 10 * 60_000);
    this.ttlMs = atLeast(options.ttlMs, 60 * 60_000, this.maxAgeMs);
  }

  /** The keys of a stream; the `{...}` hash tag keeps both in one cluster slot. */
  keysOf(streamId: string): [stream: string, meta: string] {
    const prefix = this.redis.prefix;
    return [`${prefix}:es:{${streamId}}`, `${prefix}:es-meta:{${streamId}}`];
  }

  async storeEvent(streamId: string, message: JsonRpcMessage | undefined, data?: string): Promise<string> {
    const text = message === undefined ? '' : (data ?? JSON.stringify(message));
    const args = [text, message === undefined ? '1' : '0', this.maxEvents, this.maxBytes];
    args.push(this.maxAgeMs, this.ttlMs, OVERHEAD);
    const reply = await this.run('storeEvent', streamId, APPEND, args.map(String));
    return `${streamId}_${String(reply)}`;
  }

  async replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void,
  ): Promise<string | undefined> {
    const cut = lastEventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const entryId = lastEventId.slice(cut + 1);
    if (!/^\d{1,15}-\d{1,15}$/.test(entryId)) return undefined;
    const reply = await this.run('replayEventsAfter', streamId, REPLAY, [entryId]);
    if (!Array.isArray(reply)) return undefined;
    for (const entry of reply as [string, string[]][]) {
      const [id, fields] = entry;
      if (fields[0] !== 'm' || fields[1] === undefined) continue; // priming marker
      send(`${streamId}_${id}`, JSON.parse(fields[1]) as JsonRpcMessage);
    }
    return streamId;
  }

  async finishStream(streamId: string): Promise<void> {
    await this.run('finishStream', streamId, FINISH, [String(this.maxAgeMs)]);
  }

  async forgetStream(streamId: string): Promise<void> {
    await this.redis.attempt('forgetStream', () => this.redis.client.del(this.keysOf(streamId)));
  }

  private run(operation: string, streamId: string, script: LuaScript, args: string[]): Promise<unknown> {
    return this.redis.run(operation, script, this.keysOf(streamId), args, (error) =>
      error instanceof Error && error.message.includes(EVICTED_REPLY)
        ? new StreamEvictedError(streamId)
        : undefined,
    );
  }
}
