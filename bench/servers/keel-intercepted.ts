/**
 * The default Keel bench server with three no-op interceptors (issue 26): what the chain itself
 * costs a call, when the interceptors do nothing but hand the call on (`return next()`). An
 * `async` interceptor that awaits `next()` adds the cost of its own async function on top: see
 * docs/interceptors.md for that figure.
 */
import type { McpServer, ServerInterceptor } from 'keel-mcp/server';
import { createBenchServer } from './keel-tools.js';

const noop: ServerInterceptor = (_call, next) => next();

/**
 * @example
 * await serveStdio(createInterceptedBenchServer());
 */
export function createInterceptedBenchServer(): McpServer {
  return createBenchServer().use(noop).use(noop).use(noop);
}
