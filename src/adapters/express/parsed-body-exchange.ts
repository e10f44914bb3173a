/**
 * A Node exchange that also accepts a body a middleware already parsed (`express.json()`,
 * `express.text()`, `express.raw()`): those read the request stream to its end and leave the
 * result on `req.body`, so reading the stream again would find nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DiscardLimits } from '../node/end-after-body.js';
import { NodeExchange } from '../node/node-exchange.js';
import type { BodyFault } from '../../transports/http/server-wire/exchange.js';

const encoder = new TextEncoder();

/**
 * A {@link NodeExchange} that reads `req.body` when a body parser already consumed the stream.
 *
 * @example
 * const exchange = new ParsedBodyExchange(req, res);
 * writeReply(exchange, await serve(exchange, undefined));
 */
export class ParsedBodyExchange extends NodeExchange {
  constructor(req: IncomingMessage, res: ServerResponse, discard?: DiscardLimits) {
    super(req, res, discard);
  }

  override readBody(limit: number): Promise<Uint8Array | BodyFault> {
    const parsed = parsedBody(this.req);
    if (parsed === undefined) return super.readBody(limit);
    // The parser's own limit already applied; Keel's still does, on the bytes it would have read.
    return Promise.resolve(parsed.byteLength > limit ? 'too-large' : parsed);
  }
}

/**
 * The bytes of a body a middleware parsed, or undefined when the stream is still there to read
 * (no parser ran, or it skipped this content type and left `req.body` undefined).
 */
function parsedBody(req: IncomingMessage): Uint8Array | undefined {
  const body = (req as { body?: unknown }).body;
  if (body === undefined || !req.readableEnded) return undefined;
  if (body instanceof Uint8Array) return body;
  // A JSON parser's value is re-serialized: same JSON-RPC message, Keel parses and checks it again.
  return encoder.encode(typeof body === 'string' ? body : JSON.stringify(body));
}
