/**
 * The runtime-neutral shape of one HTTP exchange, as the handler core sees it. The web-standard
 * entry (`Request` → `Response`) and the Node adapter (`IncomingMessage` → `ServerResponse`) both
 * implement it, so the HTTP semantics live in one code path and a host can skip building web
 * objects it does not need.
 */
import type { HttpRequestExtra } from './http-handler.js';

/** Why a body could not be read: over the limit, or the read failed (client gone, broken framing). */
export type BodyFault = 'too-large' | 'unreadable';

/**
 * One inbound HTTP request, read lazily: nothing is built that the handler does not ask for.
 *
 * @example
 * const type = exchange.header('content-type');
 * const body = await exchange.readBody(4 * 1024 * 1024);
 * if (body === 'too-large') return httpError(413, ErrorCode.InvalidRequest, 'Too large');
 */
export interface HttpExchange {
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** A header by lower-case name (repeated headers as the runtime joins them), or null. */
  header(name: string): string | null;
  /** The request's authority: the `Host` header, or the host of the request URL. */
  host(): string | null;
  /** Every request header, built on first use (handlers read them through `ctx.info.headers`). */
  headers(): Headers;
  /**
   * The whole body as bytes, refusing more than `limit` bytes without buffering them (the rest
   * is drained). Call at most once.
   */
  readBody(limit: number): Promise<Uint8Array | BodyFault>;
  /** The body will not be read: let the runtime drain or drop it. */
  discardBody(): void;
  /**
   * `callback` runs once if the client goes away before the response is complete (at once if it
   * already has). One callback per exchange; a later call replaces it.
   */
  onClientGone(callback: () => void): void;
}

/**
 * Where a streamed (SSE) response body goes. Implemented per runtime: a web `ReadableStream`
 * controller, or a Node `ServerResponse`.
 *
 * @example
 * const sink: SseSink = { write: (text) => (res.write(text), res.writableLength), end: () => res.end() };
 */
export interface SseSink {
  /**
   * Write a chunk of the event stream. Returns the bytes queued that the client has not taken
   * yet (`Infinity` when the connection is gone), so the writer can spot a stalled client.
   */
  write(text: string): number;
  /** End the body (server side). Never throws. */
  end(): void;
}

/**
 * An SSE response body: events written before a sink is attached wait in order.
 *
 * @example
 * reply.body.attach(sink); // flushes what was written so far, then writes live events
 */
export interface SseSource {
  attach(sink: SseSink): void;
}

/**
 * A response, before it becomes a web `Response` or is written to a Node socket. Header objects
 * are shared constants (never mutate them).
 *
 * @example
 * const reply: HttpReply = { status: 202, headers: NO_HEADERS, body: undefined };
 */
export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A complete body (JSON), an event stream, or nothing. */
  readonly body: string | SseSource | undefined;
}

/**
 * The handler core behind the web-standard entry, as a host adapter calls it. Never rejects:
 * failures become 500 replies.
 */
export type ExchangeHandler = (
  exchange: HttpExchange,
  extra: HttpRequestExtra | undefined,
) => Promise<HttpReply>;

/**
 * Key under which a handler from `createHttpHandler` exposes its {@link ExchangeHandler}, so the
 * Node adapter can serve it without building `Request`/`Response` objects. Registered symbol: it
 * survives two copies of the package in one process.
 */
export const SERVE_EXCHANGE: unique symbol = Symbol.for('keel-mcp.http.serveExchange') as never;

/**
 * The {@link ExchangeHandler} behind a handler from `createHttpHandler`; undefined for any other
 * fetch-style function.
 *
 * @example
 * const serve = exchangeHandlerOf(handler);
 * if (serve) reply = await serve(exchange, undefined);
 */
export function exchangeHandlerOf(handler: unknown): ExchangeHandler | undefined {
  const serve = (handler as { [SERVE_EXCHANGE]?: unknown })[SERVE_EXCHANGE];
  return typeof serve === 'function' ? (serve as ExchangeHandler) : undefined;
}
