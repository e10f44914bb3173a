/**
 * {@link StateStore} in one process: a map of scopes, each expiring `ttlMs` after its last write,
 * swept a few at a time on writes (no timer). Bounded in scopes too: a write that would start a
 * scope past `maxScopes` is refused once the expired ones are gone.
 */
import { stateLimitError, utf8Length, type StateStore, type StateWriteOptions } from './state-store.js';

interface Scope {
  readonly values: Map<string, string>;
  bytes: number;
  expiresAt: number;
}

/** Scopes looked at for expiry per write (more than one write adds, so the sweep keeps up). */
const SWEEP_PER_WRITE = 4;

/**
 * @example
 * const server = new McpServer(info, { state: { store: new InMemoryStateStore({ maxScopes: 50_000 }) } });
 */
export class InMemoryStateStore implements StateStore {
  readonly sharedAcrossProcesses: boolean = false;
  private readonly scopes = new Map<string, Scope>();
  private readonly maxScopes: number;
  private readonly now: () => number;
  private cursor: Iterator<[string, Scope]> | undefined;

  constructor(options: { maxScopes?: number; now?: () => number } = {}) {
    this.maxScopes = Math.max(1, options.maxScopes ?? 10_000);
    this.now = options.now ?? Date.now;
  }

  get(scope: string, key: string): Promise<string | undefined> {
    return Promise.resolve(this.live(scope)?.values.get(key));
  }

  set(scope: string, key: string, value: string, options: StateWriteOptions): Promise<void> {
    try {
      const entry = this.writable(scope, options);
      const old = entry.values.get(key);
      if (old === undefined && entry.values.size >= options.maxKeys)
        throw stateLimitError(scope, 'keys', options.maxKeys);
      const delta =
        old === undefined ? utf8Length(key) + utf8Length(value) : utf8Length(value) - utf8Length(old);
      const bytes = entry.bytes + delta;
      if (bytes > options.maxBytes) throw stateLimitError(scope, 'bytes', options.maxBytes);
      entry.values.set(key, value);
      entry.bytes = bytes;
      this.keep(scope, entry, options.ttlMs);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  delete(scope: string, key: string): Promise<boolean> {
    const entry = this.live(scope);
    const old = entry?.values.get(key);
    if (!entry || old === undefined) return Promise.resolve(false);
    entry.values.delete(key);
    entry.bytes -= utf8Length(key) + utf8Length(old);
    if (entry.values.size === 0) this.scopes.delete(scope);
    return Promise.resolve(true);
  }

  increment(scope: string, key: string, by: number, options: StateWriteOptions): Promise<number> {
    const old = this.live(scope)?.values.get(key);
    const current = old === undefined ? 0 : Number(old);
    if (!Number.isSafeInteger(current) || (old !== undefined && !/^-?\d+$/.test(old)))
      return Promise.reject(new TypeError(`ctx.state: "${key}" holds ${old}, not an integer`));
    const sum = current + by;
    if (!Number.isSafeInteger(sum))
      return Promise.reject(new RangeError(`ctx.state: "${key}" would pass 2^53`));
    return this.set(scope, key, String(sum), options).then(() => sum);
  }

  clear(scope: string): Promise<void> {
    this.scopes.delete(scope);
    return Promise.resolve();
  }

  private live(scope: string): Scope | undefined {
    const entry = this.scopes.get(scope);
    if (entry === undefined || entry.expiresAt > this.now()) return entry;
    this.scopes.delete(scope);
    return undefined;
  }

  /** The scope to write into (made if need be, within `maxScopes`). */
  private writable(scope: string, options: StateWriteOptions): Scope {
    this.sweep();
    const entry = this.live(scope);
    if (entry) return entry;
    if (this.scopes.size >= this.maxScopes)
      throw new RangeError(`ctx.state: the in-memory store holds ${this.maxScopes} scopes (maxScopes)`);
    const fresh: Scope = { values: new Map(), bytes: 0, expiresAt: this.now() + options.ttlMs };
    this.scopes.set(scope, fresh);
    return fresh;
  }

  private keep(scope: string, entry: Scope, ttlMs: number): void {
    entry.expiresAt = this.now() + ttlMs;
    // Most recently written last: the sweep meets the stale ones first.
    this.scopes.delete(scope);
    this.scopes.set(scope, entry);
  }

  private sweep(): void {
    const now = this.now();
    for (let checked = 0; checked < SWEEP_PER_WRITE; checked++) {
      this.cursor ??= this.scopes.entries();
      const next = this.cursor.next();
      if (next.done) {
        this.cursor = undefined;
        return;
      }
      const [scope, entry] = next.value;
      if (entry.expiresAt <= now) this.scopes.delete(scope);
    }
  }
}
