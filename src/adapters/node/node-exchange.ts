/**
 * An HTTP exchange straight on `node:http` objects: headers read from `req.headers`, the body
 * read into one buffer with the limit enforced while it streams, replies written with one
 * `writeHead` + `end(body)` (JSON) or direct `write`s (SSE). No web `Request`/`Response`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { shallowCopy } from '../../core/shallow-copy.js';
import type {
  BodyFault,
  HttpExchange,
  HttpReply,
  SseSink,
} from '../../transports/http/server-wire/exchange.js';
import { DEFAULT_DISCARD_LIMITS, endAfterBody, type DiscardLimits } from './end-after-body.js';

const EMPTY = new Uint8Array(0);

/**
 * One request/response pair of a `node:http` server as an {@link HttpExchange}.
 *
 * @example
 * const exchange = new NodeExchange(req, res);
 * writeReply(exchange, await serve(exchange, undefined));
 */
export class NodeExchange implements HttpExchange {
  private goneCallback: (() => void) | undefined;
  private isGone = false;
  private listening = false;
  private allHeaders: Headers | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** How much of a body still arriving after the reply is read before the connection is cut. */
    readonly discard: DiscardLimits = DEFAULT_DISCARD_LIMITS,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }

  header(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  host(): string | null {
    return this.req.headers.host ?? null;
  }

  headers(): Headers {
    return (this.allHeaders ??= headersOf(this.req.rawHeaders));
  }

  readBody(limit: number): Promise<Uint8Array | BodyFault> {
    const req = this.req;
    // Already consumed (e.g. by a body-parsing middleware): there is nothing left to read.
    if (req.readableEnded) return Promise.resolve(EMPTY);
    return new Promise((resolve) => {
      let first: Buffer | undefined;
      let chunks: Buffer[] | undefined;
      let size = 0;
      const finish = (result: Uint8Array | BodyFault): void => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onFailure);
        req.off('close', onFailure);
        resolve(result);
      };
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > limit) {
          finish('too-large');
          // Drain the rest without keeping it; the reply closes the connection.
          req.resume();
        } else if (first === undefined) first = chunk;
        else (chunks ??= [first]).push(chunk);
      };
      const onEnd = (): void => finish(chunks ? Buffer.concat(chunks, size) : (first ?? EMPTY));
      // An error, or a close before the end: the client left mid-body.
      const onFailure = (): void => finish('unreadable');
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onFailure);
      req.on('close', onFailure);
      // A 'data' listener does not restart a stream someone paused explicitly.
      req.resume();
    });
  }

  discardBody(): void {
    this.req.resume();
  }

  onClientGone(callback: () => void): void {
    this.goneCallback = callback;
    const res = this.res;
    if (this.isGone || (res.destroyed && !res.writableFinished)) {
      this.clientGone();
      return;
    }
    if (this.listening) return;
    this.listening = true;
    res.on('close', () => {
      if (!res.writableFinished) this.clientGone();
    });
  }

  private clientGone(): void {
    this.isGone = true;
    const callback = this.goneCallback;
    this.goneCallback = undefined;
    callback?.();
  }
}

/**
 * Write `reply` on the exchange's response. Never throws and never writes to a finished or
 * destroyed response.
 *
 * @example
 * writeReply(exchange, { status: 202, headers: {}, body: undefined });
 */
export function writeReply(exchange: NodeExchange, reply: HttpReply): void {
  const { req, res } = exchange;
  const body = reply.body;
  if (res.destroyed || res.writableEnded) {
    if (body !== undefined && typeof body !== 'string') body.attach(GONE);
    return;
  }
  try {
    // A request body still arriving when we answer (413, 415, ...): answer, read and discard the
    // rest for a bounded time, then close, so the client reads the answer instead of a reset.
    if (!req.complete) {
      res.setHeader('connection', 'close');
      if (typeof body !== 'object') {
        const length = body === undefined ? 0 : Buffer.byteLength(body);
        res.writeHead(reply.status, { ...reply.headers, 'content-length': String(length) });
        if (body !== undefined) res.write(body);
        endAfterBody(req, res, exchange.discard);
        return;
      }
    }
    if (typeof body === 'string') {
      const headers: Record<string, string> = shallowCopy(reply.headers);
      headers['content-length'] = String(Buffer.byteLength(body));
      res.writeHead(reply.status, headers).end(body);
    } else if (body === undefined) {
      res.writeHead(reply.status, reply.headers).end();
    } else {
      res.writeHead(reply.status, reply.headers);
      const sink = new ResponseSink(res);
      body.attach(sink);
      // Nothing to send yet: the client still learns at once that its stream is open.
      if (!sink.wrote && !res.writableEnded) res.flushHeaders();
    }
  } catch {
    res.destroy();
    if (body !== undefined && typeof body !== 'string') body.attach(GONE);
  }
}

/** An SSE body written straight to the response; Node corks the writes of one tick together. */
class ResponseSink implements SseSink {
  wrote = false;

  constructor(private readonly res: ServerResponse) {}

  write(text: string): number {
    const res = this.res;
    if (res.destroyed || res.writableEnded) return Number.POSITIVE_INFINITY;
    this.wrote = true;
    const backlog = res.writableLength;
    res.write(text);
    return backlog;
  }

  queued(): number {
    return this.res.destroyed ? 0 : this.res.writableLength;
  }

  end(): void {
    const res = this.res;
    if (!res.destroyed && !res.writableEnded) res.end();
  }

  abort(): void {
    // Frees the backlog of a client that stopped reading; ending would keep it queued.
    this.res.destroy();
  }
}

/** The sink of a response that can no longer be written: the source learns the client left. */
const GONE: SseSink = {
  write: () => Number.POSITIVE_INFINITY,
  queued: () => 0,
  end() {},
  abort() {},
};

function headersOf(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header value fetch refuses (Node accepted it): leave it out.
    }
  }
  return headers;
}
