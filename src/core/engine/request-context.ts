/**
 * The context handed to every inbound request handler. It lives exactly as long as its request.
 */
import { ContextClosedError } from '../errors.js';
import type { JsonObject, RequestId } from '../jsonrpc.js';
import type { MessageInfo } from '../transport.js';
import type { AbortWatcher, InflightRequest } from './inbound.js';
import type { RequestOptions } from './outbound.js';

/** What a context needs from its connection. */
export interface ContextHost {
  readonly sessionId: string | undefined;
  sendRelated(entry: InflightRequest, method: string, params: JsonObject | undefined): Promise<void>;
  requestFor(
    parent: InflightRequest,
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions | undefined,
  ): Promise<JsonObject>;
}

/**
 * Per-request handler context.
 *
 * - `signal` aborts on peer cancel (reason `CancelledByPeerError`), close (`ConnectionClosedError`)
 *   or shutdown.
 * - `request()` sends a server→client (or client→server) request tied to `signal` and routed with
 *   this request; after the request ended it throws {@link ContextClosedError}.
 * - `notify()`/`progress()` are dropped once the request ended or was cancelled.
 *
 * @example
 * connection.setRequestHandler('tools/call', async (params, ctx) => {
 *   await ctx.progress(1, 2);
 *   const roots = await ctx.request('roots/list', {});
 *   return { content: [] };
 * });
 */
export class RequestContext {
  constructor(
    private readonly host: ContextHost,
    private readonly entry: InflightRequest,
    /** `params._meta` of the request, if any. */
    readonly meta: JsonObject | undefined,
    /** Transport facts about the request (HTTP headers, auth). */
    readonly info: MessageInfo | undefined,
  ) {}

  get id(): RequestId {
    return this.entry.id;
  }

  get method(): string {
    return this.entry.method;
  }

  get signal(): AbortSignal {
    return this.entry.signal;
  }

  get sessionId(): string | undefined {
    return this.host.sessionId;
  }

  /**
   * @internal Tell `watcher` when this request aborts (at once if it has), for the same reasons
   * `signal` would. Cheaper than `signal`, which makes an AbortController for the request.
   */
  watchAbort(watcher: AbortWatcher): void {
    this.entry.watch(watcher);
  }

  /** @internal Stop telling `watcher` (see {@link RequestContext.watchAbort}). */
  unwatchAbort(watcher: AbortWatcher): void {
    this.entry.unwatch(watcher);
  }

  /** True once the request has ended (answered, cancelled or torn down). */
  get ended(): boolean {
    return this.entry.ended || this.entry.aborted;
  }

  /** Send a notification related to this request; dropped once it ended. */
  notify(method: string, params?: JsonObject): Promise<void> {
    if (this.ended) return Promise.resolve();
    return this.host.sendRelated(this.entry, method, params);
  }

  /** Report progress, if the caller asked for it (sent a progress token). */
  progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.entry.progressToken;
    if (token === undefined) return Promise.resolve();
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return this.notify('notifications/progress', params);
  }

  /** A nested request to the peer, cancelled with this request. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    if (this.ended) return Promise.reject(new ContextClosedError());
    // Always made as a nested request of this entry, with or without a caller's own signal: the
    // entry aborts it without an AbortController, and its cancel travels with the parent.
    return this.host.requestFor(this.entry, method, params, options);
  }
}
