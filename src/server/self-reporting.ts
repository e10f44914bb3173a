/**
 * Marks the request handlers that report their handler failures to `onerror` themselves
 * (McpServer's), so the session does not report them a second time, or report a client's bad
 * request (an unknown tool) as a server failure.
 */
import type { ServerRequestHandler } from './server.js';

const selfReporting = new WeakSet<ServerRequestHandler>();

/** @internal */
export function markSelfReporting<H extends ServerRequestHandler>(handler: H): H {
  selfReporting.add(handler);
  return handler;
}

/** @internal */
export function isSelfReporting(handler: ServerRequestHandler): boolean {
  return selfReporting.has(handler);
}
