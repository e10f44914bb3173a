/**
 * Client interceptors: code around every outbound request of a client (retries, logging, headers
 * in `_meta`, caching, trace context), onion-style in registration order: the first registered is
 * outermost. A 2026-07-28 request with `input_required` rounds is one call here (the rounds run
 * inside `next()`); the connect handshake (`initialize`, the `server/discover` probe) is not
 * intercepted.
 */
import type { RequestOptions } from '../core/engine/outbound.js';
import { rejectWith } from '../core/engine/thenable.js';
import type { JsonObject } from '../core/jsonrpc.js';

/**
 * One outbound request as a client interceptor sees it.
 *
 * @example
 * client.use((call, next) => {
 *   console.error('→', call.method, call.era);
 *   return next();
 * });
 */
export interface ClientCall {
  readonly method: string;
  /** The params the next interceptor (or the wire) gets, unless `next(params)` replaces them. */
  readonly params: JsonObject | undefined;
  /** The caller's options (signal, timeouts), unless `next(params, options)` replaces them. */
  readonly options: RequestOptions | undefined;
  /** The era chosen at connect. */
  readonly era: 'legacy' | 'modern' | undefined;
  /** The negotiated protocol version (2026-07-28 in the modern era). */
  readonly protocolVersion: string | undefined;
  /** The HTTP session id, when the transport has one. */
  readonly sessionId: string | undefined;
}

/**
 * Sends the request through the rest of the chain and resolves with the server's result (or
 * rejects with its error). Unlike the server's, it may be called more than once: each call is a
 * new request on the wire (a retry).
 *
 * @example
 * const slowLane: ClientInterceptor = (call, next: ClientNext) =>
 *   next(call.params, { ...call.options, timeoutMs: 120_000 });
 */
export type ClientNext = (params?: JsonObject, options?: RequestOptions) => Promise<JsonObject>;

/**
 * Wraps every outbound request of a client (see `Client.use` / `McpClient.use`). Return the
 * result of `next()` (transformed, or retried), your own result to short-circuit (a cache hit),
 * or throw.
 *
 * @example
 * const retryBusy: ClientInterceptor = async (call, next) => {
 *   for (let attempt = 1; ; attempt++) {
 *     try {
 *       return await next();
 *     } catch (error) {
 *       if (attempt === 3 || !(error instanceof McpError) || error.code !== ErrorCode.ServerBusy) throw error;
 *     }
 *   }
 * };
 * client.use(retryBusy);
 */
export type ClientInterceptor = (call: ClientCall, next: ClientNext) => JsonObject | Promise<JsonObject>;

/** What the client knows about its connection, read when an interceptor asks. */
export interface ClientFacts {
  readonly era: 'legacy' | 'modern' | undefined;
  readonly protocolVersion: string | undefined;
  readonly sessionId: string | undefined;
}

class OutboundCall implements ClientCall {
  constructor(
    readonly method: string,
    public params: JsonObject | undefined,
    public options: RequestOptions | undefined,
    private readonly facts: ClientFacts,
  ) {}

  get era(): 'legacy' | 'modern' | undefined {
    return this.facts.era;
  }

  get protocolVersion(): string | undefined {
    return this.facts.protocolVersion;
  }

  get sessionId(): string | undefined {
    return this.facts.sessionId;
  }
}

/**
 * @internal Run one outbound request through `interceptors` (outermost first), then `send`.
 * Always returns a promise; never throws synchronously.
 */
export function runClientInterceptors(
  interceptors: readonly ClientInterceptor[],
  facts: ClientFacts,
  method: string,
  params: JsonObject | undefined,
  options: RequestOptions | undefined,
  send: (params: JsonObject | undefined, options: RequestOptions | undefined) => Promise<JsonObject>,
): Promise<JsonObject> {
  const call = new OutboundCall(method, params, options, facts);
  const dispatch = (
    index: number,
    p: JsonObject | undefined,
    o: RequestOptions | undefined,
  ): Promise<JsonObject> => {
    call.params = p;
    call.options = o;
    if (index === interceptors.length) return send(p, o);
    const next: ClientNext = (replacedParams, replacedOptions) =>
      dispatch(index + 1, replacedParams ?? p, replacedOptions ?? o);
    try {
      return Promise.resolve(interceptors[index]!(call, next));
    } catch (error) {
      return rejectWith(error);
    }
  };
  return dispatch(0, params, options);
}
