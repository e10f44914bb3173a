/**
 * Express 5 binding of Keel's HTTP handler. Express requests and responses are Node's, so this
 * is the Node adapter plus one thing: a body an Express body parser already read (`req.body`)
 * is used instead of the (empty) stream. Express itself is not imported.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exchangeHandlerOf } from '../../transports/http/server-wire/exchange.js';
import type { HttpHandler } from '../../hosts/http/http-handler.js';
import { DEFAULT_DISCARD_LIMITS } from '../node/end-after-body.js';
import { HANDLER_FAILED } from '../node/fetch-bridge.js';
import { writeReply } from '../node/node-exchange.js';
import { toNodeListener, type NodeListenerOptions } from '../node/node-listener.js';
import { requestExtra } from '../node/request-extra.js';
import { ParsedBodyExchange } from './parsed-body-exchange.js';

/**
 * Options of {@link mcpExpress}: those of the Node adapter (`authInfo`, `discardBody`).
 *
 * @example
 * app.all('/mcp', mcpExpress(handler, { authInfo: (req) => (req as { user?: unknown }).user }));
 */
export type ExpressMcpOptions = NodeListenerOptions;

/**
 * An Express route handler serving Keel's Streamable HTTP endpoint. Works with or without a body
 * parser in front of it (a parsed `req.body` is used); SSE is written straight to the response
 * and a client that disconnects aborts the handlers of its requests. Mount it with `app.all` so
 * GET (SSE stream) and DELETE (end of session) reach it too.
 *
 * @example
 * import express from 'express';
 * import { createHttpHandler } from 'keel-mcp/http';
 * import { mcpExpress } from 'keel-mcp/express';
 * const app = express();
 * app.all('/mcp', mcpExpress(createHttpHandler(server)));
 * app.listen(3000, '127.0.0.1');
 */
export function mcpExpress(
  handler: HttpHandler,
  options: ExpressMcpOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const serve = exchangeHandlerOf(handler);
  // Not Keel's handler (a wrapper function): the general fetch bridge, which reads the stream.
  if (!serve) return toNodeListener(handler, options);
  const authInfoOf = options.authInfo ?? ((req: IncomingMessage) => (req as { auth?: unknown }).auth);
  const discard = options.discardBody ?? DEFAULT_DISCARD_LIMITS;
  return (req, res) => {
    const exchange = new ParsedBodyExchange(req, res, discard);
    void serve(exchange, requestExtra(req, authInfoOf)).then(
      (reply) => writeReply(exchange, reply),
      () => {
        exchange.discardBody();
        writeReply(exchange, HANDLER_FAILED);
      },
    );
  };
}
