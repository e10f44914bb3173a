/**
 * A small cache of introspection outcomes, bounded in size and time, keyed by a SHA-256 digest
 * of the token (the token itself is not kept): the positive answers (`AuthInfo`), and, briefly,
 * the refusals (so one bogus token sent again and again costs one introspection call per window).
 */
import type { AuthInfo } from '../../core/auth.js';

/**
 * What a cache entry may hold: anything with an optional `expiresAt` (seconds since the epoch)
 * past which it is never returned.
 *
 * @example
 * const refusal: Expiring = { expiresAt: undefined };
 */
export interface Expiring {
  readonly expiresAt?: number | undefined;
}

/**
 * @example
 * const cache = new IntrospectionCache(30_000, 1_000);
 * const key = await tokenDigest(token);
 * cache.set(key, auth);
 * cache.get(key); // auth, until 30 s pass or the token's exp, whichever is first
 */
export class IntrospectionCache<T extends Expiring = AuthInfo> {
  /** Key → entry, oldest first (Map order), so eviction drops the oldest. */
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {
    if (!(ttlMs > 0) || !Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(
        'IntrospectionVerifier cache: ttlMs must be > 0 and maxEntries a positive integer',
      );
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry under `key` (a {@link tokenDigest}), if still fresh. */
  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() >= entry.until) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T): void {
    const expiresMs = value.expiresAt === undefined ? Infinity : value.expiresAt * 1000;
    const until = Math.min(Date.now() + this.ttlMs, expiresMs);
    if (until <= Date.now()) return;
    this.entries.delete(key);
    this.entries.set(key, { value, until });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

/**
 * The hex SHA-256 of `token`: what caches and in-flight checks are keyed by, so no token is kept.
 *
 * @example
 * const key = await tokenDigest('opaque-token'); // 64 hex digits
 */
export async function tokenDigest(token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
