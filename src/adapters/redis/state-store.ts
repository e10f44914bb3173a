/**
 * {@link StateStore} on Redis (`ctx.state`, issue 28): one hash per scope, so a session adopted by
 * another process, and a principal calling any process, find their values.
 */
import { stateLimitError, type StateStore, type StateWriteOptions } from '../../server/state/state-store.js';
import { RedisAccess } from './redis-access.js';
import { LuaScript, type RedisScriptClient } from './script.js';
import { DELETE_STATE, INCREMENT_STATE, SET_STATE } from './state-scripts.js';

/**
 * The part of a Redis client the state store uses: node-redis clients fit.
 *
 * @example
 * const client: RedisStateClient = createClient({ url, disableOfflineQueue: true });
 */
export interface RedisStateClient extends RedisScriptClient {
  hGet(key: string, field: string): Promise<string | null | undefined>;
  del(keys: string[]): Promise<unknown>;
}

/**
 * @example
 * new RedisStateStore({ client, namespace: 'app' });
 */
export interface RedisStateStoreOptions {
  /** A connected client with an `'error'` listener, best with `disableOfflineQueue: true`. */
  client: RedisStateClient;
  /** Every key is `keel:<namespace>:state:...`. Letters, digits, `.`, `_`, `-`. Default `'default'`. */
  namespace?: string | undefined;
  /** Every command fails with `StoreUnavailableError` after this long. Default 2,000 ms. */
  commandTimeoutMs?: number | undefined;
}

const STORE = 'redis state store';
const SET = new LuaScript(SET_STATE);
const INCREMENT = new LuaScript(INCREMENT_STATE);
const DELETE = new LuaScript(DELETE_STATE);

/**
 * Keys: `keel:<ns>:state:{<scope>}`, a hash of the scope's values (JSON text) plus its size, with
 * the scope's TTL, renewed by each write. Bounds are checked in the same script as the write.
 *
 * @example
 * import { RedisStateStore } from 'keel-mcp/redis';
 * const server = new McpServer(info, { state: { store: new RedisStateStore({ client, namespace: 'app' }) } });
 */
export class RedisStateStore implements StateStore {
  readonly sharedAcrossProcesses = true;
  private readonly redis: RedisAccess<RedisStateClient>;

  constructor(options: RedisStateStoreOptions) {
    this.redis = new RedisAccess('RedisStateStore', STORE, options);
  }

  private key(scope: string): string {
    return `${this.redis.prefix}:state:{${scope}}`;
  }

  async get(scope: string, key: string): Promise<string | undefined> {
    const value = await this.redis.attempt('get', () => this.redis.client.hGet(this.key(scope), key));
    return value ?? undefined;
  }

  async set(scope: string, key: string, value: string, options: StateWriteOptions): Promise<void> {
    const args = [key, value, ...bounds(options)];
    const out = Number(await this.redis.run('set', SET, [this.key(scope)], args));
    if (out === -1) throw stateLimitError(scope, 'keys', options.maxKeys);
    if (out === -2) throw stateLimitError(scope, 'bytes', options.maxBytes);
  }

  async delete(scope: string, key: string): Promise<boolean> {
    return Number(await this.redis.run('delete', DELETE, [this.key(scope)], [key])) === 1;
  }

  async increment(scope: string, key: string, by: number, options: StateWriteOptions): Promise<number> {
    const args = [key, String(by), ...bounds(options)];
    const out = (await this.redis.run('increment', INCREMENT, [this.key(scope)], args)) as [number, string?];
    const code = Number(out[0]);
    if (code === -1) throw stateLimitError(scope, 'keys', options.maxKeys);
    if (code === -2) throw stateLimitError(scope, 'bytes', options.maxBytes);
    if (code === -3) throw new TypeError(`ctx.state: "${key}" does not hold an integer`);
    if (code === -4) throw new RangeError(`ctx.state: "${key}" would pass 2^53`);
    return Number(out[1]);
  }

  async clear(scope: string): Promise<void> {
    await this.redis.attempt('clear', () => this.redis.client.del([this.key(scope)]));
  }
}

function bounds(options: StateWriteOptions): string[] {
  return [String(Math.max(1, Math.floor(options.ttlMs))), String(options.maxKeys), String(options.maxBytes)];
}
