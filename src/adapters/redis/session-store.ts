/**
 * {@link SessionStore} on Redis: session records every process behind a load balancer shares.
 */
import type { SessionCreateResult, SessionRecord, SessionStore } from '../../hosts/http/session-store.js';
import { RedisAccess } from './redis-access.js';
import { LuaScript, type RedisScriptClient } from './script.js';
import { CREATE_SESSION, DELETE_SESSION, SWAP_SESSION_DATA, TOUCH_SESSION } from './session-scripts.js';

/**
 * The part of a Redis client the session store uses: node-redis clients fit.
 *
 * @example
 * const client: RedisSessionClient = createClient({ url, disableOfflineQueue: true });
 */
export interface RedisSessionClient extends RedisScriptClient {
  hGetAll(key: string): Promise<Record<string, string>>;
}

/**
 * @example
 * new RedisSessionStore({ client, namespace: 'app', commandTimeoutMs: 1_000 });
 */
export interface RedisSessionStoreOptions {
  /** A connected client with an `'error'` listener, best with `disableOfflineQueue: true`. */
  client: RedisSessionClient;
  /** Every key is `keel:<namespace>:...`. Letters, digits, `.`, `_`, `-`. Default `'default'`. */
  namespace?: string | undefined;
  /** Every command fails with {@link StoreUnavailableError} after this long. Default 2,000 ms. */
  commandTimeoutMs?: number | undefined;
}

const STORE = 'redis session store';
const CREATE = new LuaScript(CREATE_SESSION);
const TOUCH = new LuaScript(TOUCH_SESSION);
const DELETE = new LuaScript(DELETE_SESSION);
const SWAP = new LuaScript(SWAP_SESSION_DATA);

/**
 * Records are hashes `keel:<ns>:sess:{<id>}` with the session's TTL; a client's live sessions are
 * a sorted set `keel:<ns>:sess-client:{<clientKey>}` scored by expiry, so the per-client limit
 * counts only live ones. Time is Redis's clock.
 *
 * @example
 * const sessions = new RedisSessionStore({ client, namespace: 'app' });
 * if ((await sessions.create({ id, clientKey }, { ttlMs: 1_800_000, maxPerClient: 100 })) !== 'created') refuse();
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: RedisAccess<RedisSessionClient>;

  constructor(options: RedisSessionStoreOptions) {
    this.redis = new RedisAccess('RedisSessionStore', STORE, options);
  }

  private key(id: string): string {
    return `${this.redis.prefix}:sess:{${id}}`;
  }

  private get indexPrefix(): string {
    return `${this.redis.prefix}:sess-client:{`;
  }

  async create(
    record: { id: string; clientKey?: string; data?: string },
    options: { ttlMs: number; maxPerClient?: number },
  ): Promise<SessionCreateResult> {
    const ttl = String(Math.max(1, Math.floor(options.ttlMs)));
    const args = [record.id, ttl, record.clientKey ?? '', record.clientKey === undefined ? '0' : '1'];
    args.push(options.maxPerClient === undefined ? '' : String(options.maxPerClient));
    args.push(record.data ?? '', record.data === undefined ? '0' : '1', this.indexPrefix);
    return (await this.redis.run('create', CREATE, [this.key(record.id)], args)) as SessionCreateResult;
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const fields = await this.redis.attempt('get', () => this.redis.client.hGetAll(this.key(id)));
    if (fields.id === undefined) return undefined;
    const record: SessionRecord = {
      id: fields.id,
      createdAt: Number(fields.createdAt),
      lastSeenAt: Number(fields.lastSeenAt),
    };
    if (fields.clientKey !== undefined) record.clientKey = fields.clientKey;
    if (fields.data !== undefined) record.data = fields.data;
    return record;
  }

  async touch(id: string, ttlMs: number): Promise<boolean> {
    const args = [String(Math.max(1, Math.floor(ttlMs))), this.indexPrefix];
    return (await this.redis.run('touch', TOUCH, [this.key(id)], args)) === 1;
  }

  async delete(id: string): Promise<boolean> {
    const args = [this.indexPrefix];
    return (await this.redis.run('delete', DELETE, [this.key(id)], args)) === 1;
  }

  async swap(id: string, expected: string | undefined, data: string): Promise<boolean> {
    const args = [expected ?? '', expected === undefined ? '0' : '1', data];
    return (await this.redis.run('swap', SWAP, [this.key(id)], args)) === 1;
  }
}
