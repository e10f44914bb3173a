/**
 * What a handler sees of one scope of `ctx.state`: JSON values by key, checked on the way in.
 */
import type { StateStore, StateWriteOptions } from './state-store.js';

/** Longest key, in characters. */
const MAX_KEY = 256;

/**
 * One scope of `ctx.state` (a session's, or a principal's).
 *
 * @example
 * const visits = await ctx.state.principal.increment('visits');
 * await ctx.state.session.set('cart', [...((await ctx.state.session.get<string[]>('cart')) ?? []), 'apple']);
 */
export class StateScope {
  /** @internal */
  constructor(
    private readonly store: StateStore,
    /** The scope's id in the store, e.g. `session:<id>`, `principal:<principal>`. */
    readonly id: string,
    private readonly bounds: StateWriteOptions,
  ) {}

  /** The value at `key` (a copy, parsed from JSON), or undefined. */
  async get<T = unknown>(key: string): Promise<T | undefined> {
    const text = await this.store.get(this.id, checkKey(key));
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  /** Keep `value` (anything JSON can hold) at `key`. */
  set(key: string, value: unknown): Promise<void> {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      return Promise.reject(
        new TypeError(`ctx.state: the value for "${key}" cannot be stored as JSON`, { cause: error }),
      );
    }
    if (text === undefined)
      return Promise.reject(
        new TypeError(`ctx.state: the value for "${key}" cannot be stored as JSON (${typeof value})`),
      );
    return this.store.set(this.id, checkKey(key), text, this.bounds);
  }

  /** Remove `key`; `true` when it was there. */
  delete(key: string): Promise<boolean> {
    return this.store.delete(this.id, checkKey(key));
  }

  /** Add `by` (an integer, default 1) to the integer at `key` (0 when absent), atomically; the sum. */
  increment(key: string, by = 1): Promise<number> {
    if (!Number.isSafeInteger(by))
      return Promise.reject(new TypeError(`ctx.state: increment by ${by}: not a safe integer`));
    return this.store.increment(this.id, checkKey(key), by, this.bounds);
  }
}

function checkKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY || key.startsWith('\0'))
    throw new TypeError(
      `ctx.state: keys are non-empty strings of at most ${MAX_KEY} characters (got ${JSON.stringify(key)})`,
    );
  return key;
}
