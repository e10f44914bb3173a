/**
 * The per-request extra the Node adapter hands a fetch-style handler.
 */
import type { IncomingMessage } from 'node:http';
import type { HttpRequestExtra } from '../../hosts/http/http-handler.js';

/**
 * What the handler learns about the request beyond its headers: the auth layer's result and the
 * peer address (for `sessions.clientKey`).
 *
 * @example
 * await handler(request, requestExtra(req, (r) => (r as { auth?: unknown }).auth));
 */
export function requestExtra(
  req: IncomingMessage,
  authInfoOf: (req: IncomingMessage) => unknown,
): HttpRequestExtra {
  const extra: HttpRequestExtra = { remoteAddress: req.socket.remoteAddress };
  const authInfo = authInfoOf(req);
  if (authInfo !== undefined) extra.authInfo = authInfo;
  return extra;
}
