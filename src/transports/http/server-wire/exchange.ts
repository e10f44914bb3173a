/**
 * The runtime-neutral shape of one HTTP exchange, as the handler core sees it. The web-standard
 * entry (`Request` → `Response`) and the Node adapter (`IncomingMessage` → `ServerResponse`) both
 * implement it, so the HTTP semantics live in one code path and a host can skip building web
 * objects it does not need.
 */
import type { ExchangeHandler } from './types.js';

export type {
  BodyFault,
  ExchangeHandler,
  HttpExchange,
  HttpReply,
  HttpRequestExtra,
  SseSink,
  SseSource,
} from './types.js';

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
