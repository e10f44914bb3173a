/**
 * Closing a connection whose request body is still arriving, in stages (RFC 9112 §9.6): the
 * answer goes out first, then the rest of the body is read and thrown away for a bounded time
 * and size, and only then is the connection closed. Closing at once makes the kernel answer the
 * client's next bytes with a reset, which often destroys the answer before the client reads it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How much of an unwanted request body is read and discarded before the connection is cut.
 *
 * @example
 * toNodeListener(handler, { discardBody: { ms: 2_000, bytes: 1024 * 1024 } });
 */
export interface DiscardLimits {
  /** Longest time spent reading it, in ms. */
  readonly ms: number;
  /** Most bytes read. */
  readonly bytes: number;
}

/**
 * Default {@link DiscardLimits}: 5 s and 8 MiB (a 4 MiB-limit overrun from a fast client is read
 * to its end; a client that keeps sending is cut).
 *
 * @example
 * toNodeListener(handler, { discardBody: { ...DEFAULT_DISCARD_LIMITS, ms: 1_000 } });
 */
export const DEFAULT_DISCARD_LIMITS: DiscardLimits = Object.freeze({ ms: 5_000, bytes: 8 * 1024 * 1024 });

/**
 * End `res` (whose head and body are already written) once `req`'s body has been read to its
 * end, or cut the connection when `limits` run out first. With a complete request this is
 * `res.end()`. The reply must carry `Connection: close`.
 *
 * @example
 * res.setHeader('connection', 'close');
 * res.writeHead(413, headers).write(body);
 * endAfterBody(req, res, DEFAULT_DISCARD_LIMITS);
 */
export function endAfterBody(req: IncomingMessage, res: ServerResponse, limits: DiscardLimits): void {
  if (req.complete || req.destroyed || res.destroyed) {
    if (!res.writableEnded && !res.destroyed) res.end();
    return;
  }
  let seen = 0;
  const stop = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    res.off('close', stop);
  };
  function finish(): void {
    stop();
    if (!res.writableEnded && !res.destroyed) res.end();
  }
  function cut(): void {
    stop();
    if (!res.writableEnded && !res.destroyed) res.end();
    req.socket.destroy();
  }
  function onData(chunk: Buffer): void {
    seen += chunk.length;
    if (seen > limits.bytes) cut();
  }
  const timer = setTimeout(cut, limits.ms);
  req.on('data', onData);
  req.once('end', finish);
  res.once('close', stop);
  req.resume();
}
