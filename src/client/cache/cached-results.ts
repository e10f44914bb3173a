/**
 * One client's use of a {@link ResultCache}: which server it talks to, which private partition is
 * its own, when a result may be cached (2026-07-28 only, `ttlMs` > 0), and what invalidates it.
 *
 * The spec (SEP-2549, 2026-07-28 "Caching") lets a client treat a cacheable result as fresh for
 * `ttlMs` milliseconds; `cacheScope: "public"` says it is the same for every user and may be
 * shared, `"private"` that it belongs to one authorization context. Legacy servers send no hints
 * (and their keys would mean nothing): nothing is cached in the legacy era.
 */
import type { RequestOptions } from '../../core/engine/outbound.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { ResultCache, type ResultKey } from './result-cache.js';

/** The methods whose results carry caching hints (`server/discover` is the connect probe's). */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/**
 * Per call: `use` (the default) serves a fresh cached result or fetches and caches; `refresh`
 * always fetches and caches what comes back; `bypass` fetches and leaves the cache alone.
 *
 * @example
 * await client.listTools({}, { cache: 'refresh' });
 */
export type CacheMode = 'use' | 'refresh' | 'bypass';

/**
 * `McpClient` option `cache`: `false` turns caching off; otherwise where results are kept and how
 * they are keyed. Default: a store of the client's own, keyed by the transport's URL.
 *
 * @example
 * const store = new ResultCache();
 * new McpClient(info, { cache: { store, partition: `user:${userId}` } });
 */
export interface ClientCacheOptions {
  /** The store; share one between clients to share `public` results. Default: the client's own. */
  store?: ResultCache;
  /**
   * Who the server is, so two servers never mix. Default: the transport's URL when it has one
   * (Streamable HTTP), else an id of this client only (a public result is then not shared).
   */
  serverKey?: string;
  /**
   * This client's authorization context: its `private` results are served to it only. Default: an
   * id of this client, renewed when its session is replaced. Give the user's identity to let
   * several clients of the same user share private results.
   */
  partition?: string;
}

/** What a cached request needs to send one. */
export type Send = (
  method: string,
  params: JsonObject,
  options: RequestOptions | undefined,
) => Promise<JsonObject>;

/** @internal One client's cache. */
export class CachedResults {
  private readonly store: ResultCache;
  private readonly fixedServer: string | undefined;
  private readonly fixedPartition: string | undefined;
  private server: string;
  private partition: string;

  constructor(options: ClientCacheOptions) {
    this.store = options.store ?? new ResultCache();
    this.fixedServer = options.serverKey;
    this.fixedPartition = options.partition;
    this.server = options.serverKey ?? `client:${crypto.randomUUID()}`;
    this.partition = options.partition ?? `private:${crypto.randomUUID()}`;
  }

  /** The client connected over `transport`: key the server by its URL unless told otherwise. */
  connected(transport: unknown): void {
    if (this.fixedServer !== undefined) return;
    const url = (transport as { url?: unknown }).url;
    this.server =
      url instanceof URL || typeof url === 'string' ? `url:${String(url)}` : `client:${crypto.randomUUID()}`;
  }

  /** Send `method`, or serve it from the cache when the hints allowed and the caller agrees. */
  async request(
    send: Send,
    method: string,
    params: JsonObject,
    options: (RequestOptions & { cache?: CacheMode }) | undefined,
  ): Promise<JsonObject> {
    const mode = options?.cache ?? 'use';
    if (mode === 'bypass' || !CACHEABLE.has(method)) return send(method, params, options);
    const paramsKey = keyOfParams(params);
    const uri = method === 'resources/read' ? (params.uri as string) : undefined;
    const own: ResultKey = { server: this.server, partition: this.partition, method, params: paramsKey, uri };
    const everyone: ResultKey = { ...own, partition: 'public' };
    if (mode === 'use') {
      const hit = this.store.get(own) ?? this.store.get(everyone);
      if (hit !== undefined) return hit;
    }
    const result = await send(method, params, options);
    const ttlMs = result.ttlMs;
    if (typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0) {
      // Anything but an explicit "public" is this client's only.
      this.store.set(result.cacheScope === 'public' ? everyone : own, result, ttlMs);
    }
    return result;
  }

  /** A `list_changed` for `methods` arrived: their pages are stale for everyone. */
  listChanged(methods: readonly string[]): void {
    this.store.dropMethods(this.server, methods);
  }

  /** `notifications/resources/updated`: that URI's reads are stale for everyone. */
  resourceUpdated(uri: string): void {
    this.store.dropUri(this.server, uri);
  }

  /** The session was replaced (or the client reconnected): its private results are not ours now. */
  sessionReplaced(): void {
    this.store.dropPartition(this.server, this.partition);
    if (this.fixedPartition === undefined) this.partition = `private:${crypto.randomUUID()}`;
  }
}

/** The cache key of a request's parameters: everything but `_meta` (which only routes it). */
function keyOfParams(params: JsonObject): string {
  if (params._meta === undefined) return JSON.stringify(params);
  const { _meta: _ignored, ...rest } = params;
  return JSON.stringify(rest);
}
