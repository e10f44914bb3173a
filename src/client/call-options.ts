/**
 * The per-call options of `McpClient` methods and the typed `tools/call` result.
 */
import type { RequestOptions } from '../core/engine/outbound.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { Meta } from '../core/types/common.js';
import type { CallToolResult } from '../core/types/tools.js';
import type { CacheMode } from './cache/cached-results.js';

/**
 * Per-call options: cancellation, timeout, progress.
 *
 * @example
 * const options: CallOptions = { signal: controller.signal, timeoutMs: 5_000, maxTotalTimeoutMs: 60_000 };
 * await client.readResource('file:///notes.txt', options);
 */
export type CallOptions = Omit<RequestOptions, 'relatedRequestId'> & {
  /**
   * Lists and `resources/read` in the 2026-07-28 era: `use` (default) serves a result the
   * server's caching hints still allow, `refresh` fetches and caches anew, `bypass` neither reads
   * nor writes the cache. Ignored by other methods.
   */
  cache?: CacheMode;
};

/**
 * @example
 * await client.callTool('render', { id: 7 }, { signal, timeoutMs: 30_000, onprogress: (p) => bar.update(p.progress) });
 */
export interface CallToolOptions extends CallOptions {
  /** Check `structuredContent` against the cached `outputSchema` (default: the client's setting). */
  validateOutput?: boolean;
  /** `_meta` to send with the call. */
  meta?: Meta;
}

/**
 * `CallToolResult` with a typed `structuredContent`.
 *
 * @example
 * const result: TypedCallToolResult<{ tempC: number }> = await client.callTool('forecast', { city: 'Oslo' });
 * console.log(result.structuredContent?.tempC);
 */
export type TypedCallToolResult<S extends JsonObject = JsonObject> = CallToolResult & {
  structuredContent?: S;
};
