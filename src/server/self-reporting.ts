/**
 * Marks the request handlers that report their handler failures to `onerror` themselves
 * (McpServer's), so the session does not report them a second time, or report a client's bad
 * request (an unknown tool) as a server failure.
 */

/**
 * A request handler, seen only by its identity (a `ServerRequestHandler` is one): this file needs
 * no import of the session or the server, which both depend on it.
 */
type Handler = (...args: never[]) => unknown;

const selfReporting = new WeakSet<Handler>();

/** @internal */
export function markSelfReporting<H extends Handler>(handler: H): H {
  selfReporting.add(handler);
  return handler;
}

/** @internal */
export function isSelfReporting(handler: Handler): boolean {
  return selfReporting.has(handler);
}
