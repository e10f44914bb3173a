/**
 * Where `ctx.state` keeps its values (issue 28): one small key-value map per scope (a session, a
 * principal), bounded and expiring. In memory by default ({@link InMemoryStateStore}); on Redis
 * for a deployment of several processes (`RedisStateStore` in `keel-mcp/redis`), so a session
 * adopted by another process, or a principal calling any process, finds its values.
 */

/**
 * The bounds of one write: how long the scope lives after it (each write renews it), and how
 * large the scope may be. A write past a bound is refused with a `RangeError`; nothing is dropped.
 *
 * @example
 * await store.set('principal:alice', 'calls', '3', { ttlMs: 86_400_000, maxKeys: 100, maxBytes: 65_536 });
 */
export interface StateWriteOptions {
  readonly ttlMs: number;
  /** Keys in the scope. */
  readonly maxKeys: number;
  /** UTF-8 bytes of the scope's keys and values together. */
  readonly maxBytes: number;
}

/**
 * A backend of `ctx.state`. Values are JSON text; every operation is atomic on its scope (of
 * concurrent `increment`s none is lost, on one process or many). Implementations: memory and
 * Redis; both pass test/contracts/state-store.contract.ts.
 *
 * @example
 * const state: StateStore = new InMemoryStateStore();
 * await state.set('session:s1', 'cart', '["apple"]', { ttlMs: 3_600_000, maxKeys: 100, maxBytes: 65_536 });
 */
export interface StateStore {
  /** The value's JSON text, or undefined (never set, deleted, or its scope expired). */
  get(scope: string, key: string): Promise<string | undefined>;
  /** Set one value; renews the scope's expiry. Rejects with `RangeError` past a bound. */
  set(scope: string, key: string, value: string, options: StateWriteOptions): Promise<void>;
  /** `true` when a value was there. */
  delete(scope: string, key: string): Promise<boolean>;
  /**
   * Add `by` (a safe integer) to the number stored at `key` (0 when absent) and return the sum;
   * renews the scope's expiry. Rejects with `TypeError` when the value there is not an integer.
   */
  increment(scope: string, key: string, by: number, options: StateWriteOptions): Promise<number>;
  /** Drop the whole scope (a session that ended). */
  clear(scope: string): Promise<void>;
  /**
   * Whether a session's scope should be cleared when its connection closes: yes for a store in
   * one process (nothing else can use it); no for a shared one, where the session may go on in
   * another process (issue 28: hand-over, adoption) and the scope's TTL ends it.
   */
  readonly sharedAcrossProcesses: boolean;
}

/** UTF-8 length of `text` (bounds count bytes, as Redis does). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The refusal of a write past a bound, worded the same by every store. */
export function stateLimitError(scope: string, what: 'keys' | 'bytes', limit: number): RangeError {
  const label = scope.slice(0, scope.indexOf(':') + 1) || scope;
  return new RangeError(
    what === 'keys'
      ? `ctx.state: the ${label.replace(/:$/, '')} scope already holds ${limit} keys (maxKeys); delete one first`
      : `ctx.state: the ${label.replace(/:$/, '')} scope would exceed ${limit} bytes (maxBytes)`,
  );
}
