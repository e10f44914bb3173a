/**
 * What every Redis adapter (relay, session store, event store) sets up the same way from its
 * options: the client, the key prefix of its namespace, the time bound of each command, and the
 * rounding of its numeric bounds and TTLs.
 */
import { attempt, bounded } from './bounded.js';
import { keyPrefix } from './namespace.js';
import type { LuaScript, RedisScriptClient } from './script.js';

/**
 * The options every Redis adapter takes (each adapter's own options interface documents them for
 * its users).
 *
 * @example
 * const options: RedisAccessOptions<RedisSessionClient> = { client, namespace: 'app', commandTimeoutMs: 1_000 };
 */
export interface RedisAccessOptions<Client> {
  client: Client;
  namespace?: string | undefined;
  commandTimeoutMs?: number | undefined;
}

/** Default of `commandTimeoutMs` in every adapter. */
const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;

/**
 * One adapter's way to Redis: `client`, `prefix` (`keel:<namespace>`, checked) and `bounded()`,
 * which bounds a command by `commandTimeoutMs` and names the adapter (`store`) in its
 * `StoreUnavailableError`. Held by composition: the adapters' public types do not change.
 *
 * @example
 * const redis = new RedisAccess('RedisSessionStore', 'redis session store', options);
 * const fields = await redis.bounded('get', redis.attempt(() => redis.client.hGetAll(`${redis.prefix}:sess:{id}`)));
 */
export class RedisAccess<Client> {
  readonly client: Client;
  readonly prefix: string;
  readonly timeoutMs: number;

  /**
   * @param owner the adapter's class name, for a bad `namespace`'s `TypeError`
   * @param store the adapter as `StoreUnavailableError` names it (`'redis relay'`, ...)
   */
  constructor(
    owner: string,
    private readonly store: string,
    options: RedisAccessOptions<Client>,
  ) {
    this.client = options.client;
    this.prefix = keyPrefix(owner, options.namespace);
    this.timeoutMs = Math.max(1, options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
  }

  /**
   * `command`, failing with `StoreUnavailableError` after the command timeout or on any failure
   * (unless `mapError` names a more precise error). No closure of its own: it is on the hot path.
   */
  bounded<T>(
    operation: string,
    command: Promise<T>,
    mapError?: (error: unknown) => Error | undefined,
  ): Promise<T> {
    return bounded(this.store, operation, command, this.timeoutMs, mapError);
  }

  /** `script` run on `keys` with `args`, bounded as {@link bounded} is. */
  run(
    this: RedisAccess<RedisScriptClient>,
    operation: string,
    script: LuaScript,
    keys: string[],
    args: string[],
    mapError?: (error: unknown) => Error | undefined,
  ): Promise<unknown> {
    return this.bounded(operation, script.run(this.client, { keys, arguments: args }), mapError);
  }

  /**
   * `command()` bounded; a synchronous throw (a closed or destroyed node-redis client throws)
   * becomes a rejection too, so nothing throws out of a caller's timer (the relay's heartbeat).
   */
  attempt<T>(operation: string, command: () => Promise<T>): Promise<T> {
    return bounded(this.store, operation, attempt(command), this.timeoutMs);
  }
}

/**
 * A count or duration option as the adapters read it: whole, at least `min` (default 1), and
 * `fallback` when not given.
 *
 * @example
 * const heartbeatMs = atLeast(options.heartbeatMs, 1_000);
 * const ttlMs = atLeast(options.ttlMs, 5 * heartbeatMs, heartbeatMs + 1);
 */
export function atLeast(value: number | undefined, fallback: number, min = 1): number {
  return Math.max(min, Math.floor(value ?? fallback));
}
