/**
 * The store of cached 2026-07-28 results (SEP-2549 caching hints): bounded, least recently used
 * first out, expiry checked on read (no timer: nothing keeps a process alive). One store may be
 * shared by several clients: a `public` result is then served to each client of the same server,
 * a `private` one only to the client (the authorization context) that fetched it.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import { limitOption } from '../../core/limit-option.js';

/**
 * @example
 * const shared = new ResultCache({ maxEntries: 2_000 });
 */
export interface ResultCacheOptions {
  /** Entries kept at most; the least recently used goes first. Default 500. */
  maxEntries?: number;
  /**
   * Characters of cached JSON kept at most, over all entries (a result larger than this is not
   * cached). Default 8,000,000.
   */
  maxSize?: number;
  /** The clock, in milliseconds (tests). Default `Date.now`. */
  now?: () => number;
}

interface Entry {
  /** The result as JSON: every read parses its own copy (cheaper than `structuredClone`). */
  readonly text: string;
  readonly expires: number;
  readonly server: string;
  readonly method: string;
  /** `resources/read`: the URI (what `notifications/resources/updated` names). */
  readonly uri: string | undefined;
}

/** Where a result is cached: which server, whose (a client's partition, or everyone's), what. */
export interface ResultKey {
  readonly server: string;
  /** `public`, or the private partition of one client. */
  readonly partition: string;
  readonly method: string;
  /** The request's own parameters (cursor, URI) as a string. */
  readonly params: string;
  readonly uri?: string | undefined;
}

/**
 * Cached list and read results. `McpClient` makes one per client unless given one to share
 * (`cache: { store }`); share one between clients of the same server to share `public` results.
 *
 * @example
 * const store = new ResultCache();
 * const alice = new McpClient(info, { cache: { store } });
 * const bob = new McpClient(info, { cache: { store } });
 * // a tools/list the server marked { ttlMs: 60_000, cacheScope: 'public' } is fetched once for both
 */
export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  private readonly max: number;
  private readonly maxSize: number;
  private readonly now: () => number;
  private chars = 0;

  constructor(options: ResultCacheOptions = {}) {
    this.max = limitOption('ResultCache maxEntries', options.maxEntries, 500);
    this.maxSize = limitOption('ResultCache maxSize', options.maxSize, 8_000_000);
    this.now = options.now ?? Date.now;
  }

  /** Entries held now (expired ones included until read or pushed out). */
  get size(): number {
    return this.entries.size;
  }

  /** @internal A fresh copy of the cached result, or undefined (missing or expired). */
  get(key: ResultKey): JsonObject | undefined {
    const id = idOf(key);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.now()) {
      this.remove(id);
      return undefined;
    }
    // Most recently used last: the Map's order is the eviction order.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return JSON.parse(entry.text) as JsonObject;
  }

  /** @internal Keep a copy of `value` for `ttlMs` (not at all if it alone is over `maxSize`). */
  set(key: ResultKey, value: JsonObject, ttlMs: number): void {
    const id = idOf(key);
    this.remove(id);
    const text = JSON.stringify(value);
    if (text.length > this.maxSize) return;
    this.entries.set(id, {
      text,
      expires: this.now() + ttlMs,
      server: key.server,
      method: key.method,
      uri: key.uri,
    });
    this.chars += text.length;
    while (this.entries.size > this.max || this.chars > this.maxSize)
      this.remove(this.entries.keys().next().value!);
  }

  /** @internal Drop every result of `methods` from `server` (all partitions): a list changed. */
  dropMethods(server: string, methods: readonly string[]): void {
    for (const [id, entry] of this.entries)
      if (entry.server === server && methods.includes(entry.method)) this.remove(id);
  }

  /** @internal Drop every cached read of `uri` from `server`: the resource was updated. */
  dropUri(server: string, uri: string): void {
    for (const [id, entry] of this.entries) if (entry.server === server && entry.uri === uri) this.remove(id);
  }

  /** @internal Drop one partition's entries (a client's session was replaced). */
  dropPartition(server: string, partition: string): void {
    const prefix = `${server}\u0000${partition}\u0000`;
    for (const id of this.entries.keys()) if (id.startsWith(prefix)) this.remove(id);
  }

  /** Drop everything. */
  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  private remove(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    this.chars -= entry.text.length;
  }
}

function idOf(key: ResultKey): string {
  return `${key.server}\u0000${key.partition}\u0000${key.method}\u0000${key.params}`;
}
