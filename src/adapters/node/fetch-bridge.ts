/**
 * The general `node:http` binding of any fetch-style handler: IncomingMessage → `Request`,
 * `Response` → ServerResponse. Keel's own handler takes the direct path (`node-exchange.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/errors.js';
import type { HttpReply } from '../../transports/http/server-wire/exchange.js';
import type { HttpRequestExtra } from '../../hosts/http/http-handler.js';
import { messageError } from '../../transports/http/server-wire/responses.js';
import { DEFAULT_DISCARD_LIMITS, endAfterBody, type DiscardLimits } from './end-after-body.js';
import { requestExtra } from './request-extra.js';

/** A web-standard handler with Keel's optional per-request extra. */
export type WebHandler = (request: Request, extra?: HttpRequestExtra) => Promise<Response>;

/** The answer when a handler throws: a JSON-RPC internal error with id null. */
export const HANDLER_FAILED: HttpReply = Object.freeze(
  messageError(ErrorCode.InternalError, 'Internal server error', null),
);

/** Bytes buffered from the request before Node stops reading the socket. */
const BODY_HIGH_WATER_MARK = 64 * 1024;

/**
 * Serve one request through a web-standard handler: IncomingMessage → `Request` (a client that
 * disconnects aborts `request.signal`), `Response` → ServerResponse (and cancels its body).
 *
 * @example
 * void serveFetch(async () => new Response('ok'), (req) => undefined, req, res);
 */
export async function serveFetch(
  handler: WebHandler,
  authInfoOf: (req: IncomingMessage) => unknown,
  req: IncomingMessage,
  res: ServerResponse,
  discard: DiscardLimits = DEFAULT_DISCARD_LIMITS,
): Promise<void> {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort(new Error('client disconnected'));
  });
  let response: Response;
  let request: Request | undefined;
  try {
    request = toRequest(req, abort.signal);
    response = await handler(request, requestExtra(req, authInfoOf));
  } catch {
    response = new Response(HANDLER_FAILED.body as string, {
      status: HANDLER_FAILED.status,
      headers: HANDLER_FAILED.headers,
    });
  }
  // A body the handler left unread: stop feeding it, so the bounded discard can read it through.
  const unread = request?.body;
  if (unread && !unread.locked) void unread.cancel().catch(ignore);
  await writeResponse(response, req, res, abort.signal, discard);
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header value fetch refuses (Node accepted it): leave it out.
    }
  }
  const host = safeHost(req.headers.host);
  const url = `http://${host}${req.url?.startsWith('/') ? req.url : '/'}`;
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (hasBody) {
    init.body = bodyOf(req);
    init.duplex = 'half';
  }
  return new Request(url, init);
}

/** A Host usable in a URL; anything odd falls back to localhost (the handler checks the header). */
function safeHost(host: string | undefined): string {
  return host !== undefined && /^[a-z0-9.\-[\]:]+$/i.test(host) ? host : 'localhost';
}

/** The request body as a pull-based web stream: nothing is read until the handler asks. */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (done) return;
          done = true;
          controller.close();
        });
        req.once('error', (error) => {
          if (done) return;
          done = true;
          controller.error(error);
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        // The handler gave up on the body (too large, refused): drain it without buffering.
        done = true;
        req.resume();
      },
    },
    { highWaterMark: BODY_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  );
}

async function writeResponse(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  clientGone: AbortSignal,
  discard: DiscardLimits,
): Promise<void> {
  const body = response.body;
  if (res.destroyed || clientGone.aborted) {
    await body?.cancel().catch(ignore);
    return;
  }
  try {
    res.statusCode = response.status;
    const cookies = response.headers.getSetCookie();
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') res.setHeader(name, value);
    });
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    // A request body still arriving when we answer: close the connection afterwards rather than
    // reading the rest of it on a keep-alive socket.
    if (!req.complete) res.setHeader('connection', 'close');
  } catch {
    res.destroy();
    await body?.cancel().catch(ignore);
    return;
  }
  if (!body) {
    endAfterBody(req, res, discard);
    return;
  }
  const streaming = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (streaming) res.flushHeaders();
  const reader = body.getReader();
  const onGone = (): void => void reader.cancel().catch(ignore);
  clientGone.addEventListener('abort', onGone, { once: true });
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      if (res.destroyed) break;
      if (!res.write(next.value)) await drained(res);
    }
    // A body still arriving: read and discard the rest (bounded) before closing.
    if (!res.destroyed) endAfterBody(req, res, discard);
  } catch {
    // The body failed or the client left mid-write: end what can be ended.
    res.destroy();
  } finally {
    clientGone.removeEventListener('abort', onGone);
    if (res.destroyed) await reader.cancel().catch(ignore);
    reader.releaseLock();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function ignore(): void {}
