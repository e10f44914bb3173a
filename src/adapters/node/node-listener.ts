/**
 * node:http binding of a fetch-style handler. Keel's own handler is served directly on the Node
 * objects (no web `Request`/`Response` per call); any other fetch-style function goes through
 * `Request`/`Response`. Either way a client that disconnects is noticed (`request.signal` aborts,
 * a streamed body is cancelled) and nothing is written to a finished response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exchangeHandlerOf, type ExchangeHandler } from '../../transports/http/server-wire/exchange.js';
import type { HttpHandler, HttpRequestExtra } from '../../hosts/http/http-handler.js';
import { DEFAULT_DISCARD_LIMITS, type DiscardLimits } from './end-after-body.js';
import { HANDLER_FAILED, serveFetch } from './fetch-bridge.js';
import { NodeExchange, writeReply } from './node-exchange.js';
import { requestExtra } from './request-extra.js';

/**
 * @example
 * toNodeListener(handler, { authInfo: (req) => (req as { auth?: unknown }).auth });
 */
export interface NodeListenerOptions {
  /** What to pass as `authInfo` (default: `req.auth`, as set by common auth middleware). */
  authInfo?: (req: IncomingMessage) => unknown;
  /**
   * When the answer goes out before the request body was read (413, 415, 403, ...): read and
   * discard the rest for at most this long and this many bytes, then close the connection.
   * Default {@link DEFAULT_DISCARD_LIMITS} (5 s, 8 MiB).
   */
  discardBody?: DiscardLimits;
}

/**
 * A fetch-style handler: Keel's {@link HttpHandler} or any `(Request) => Promise<Response>`.
 *
 * @example
 * const health: FetchHandler = async () => new Response('ok');
 * createServer(toNodeListener(health)).listen(8080, '127.0.0.1');
 */
export type FetchHandler = HttpHandler | ((request: Request, extra?: HttpRequestExtra) => Promise<Response>);

/**
 * A `node:http` request listener for a fetch-style handler. Never throws and never writes to a
 * finished response; a client that disconnects aborts `request.signal` and cancels the body.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeListener(createHttpHandler(server))).listen(3000, '127.0.0.1');
 */
export function toNodeListener(
  handler: FetchHandler,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const authInfoOf = options.authInfo ?? requestAuth;
  const discard = options.discardBody ?? DEFAULT_DISCARD_LIMITS;
  const serve = exchangeHandlerOf(handler);
  if (serve) {
    return (req, res) => {
      void serveExchange(serve, authInfoOf, new NodeExchange(req, res, discard));
    };
  }
  return (req, res) => {
    void serveFetch(handler, authInfoOf, req, res, discard);
  };
}

async function serveExchange(
  serve: ExchangeHandler,
  authInfoOf: (req: IncomingMessage) => unknown,
  exchange: NodeExchange,
): Promise<void> {
  let reply;
  try {
    reply = await serve(exchange, requestExtra(exchange.req, authInfoOf));
  } catch {
    exchange.discardBody();
    reply = HANDLER_FAILED;
  }
  writeReply(exchange, reply);
}

function requestAuth(req: IncomingMessage): unknown {
  return (req as { auth?: unknown }).auth;
}
