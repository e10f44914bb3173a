/**
 * A small cache of positive introspection answers, bounded in size and time, keyed by a SHA-256
 * digest of the token (the token itself is not kept).
 */
import type { AuthInfo } from '../../core/auth.js';

/**
 * @example
 * const cache = new IntrospectionCache(30_000, 1_000);
 * await cache.set(token, auth);
 * await cache.get(token); // auth, until 30 s pass or the token's exp, whichever is first
 */
export class IntrospectionCache {
  /** Digest → entry, oldest first (Map order), so eviction drops the oldest. */
  private readonly entries = new Map<string, { auth: AuthInfo; until: number }>();

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

  async get(token: string): Promise<AuthInfo | undefined> {
    const key = await digest(token);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() >= entry.until) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.auth;
  }

  async set(token: string, auth: AuthInfo): Promise<void> {
    const expiresMs = auth.expiresAt === undefined ? Infinity : auth.expiresAt * 1000;
    const until = Math.min(Date.now() + this.ttlMs, expiresMs);
    if (until <= Date.now()) return;
    const key = await digest(token);
    this.entries.delete(key);
    this.entries.set(key, { auth, until });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

async function digest(token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
