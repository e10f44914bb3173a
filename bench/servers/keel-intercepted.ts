/**
 * The default Keel bench server with three no-op interceptors (issue 26): what `server.use` costs
 * a call when the interceptors do nothing but call `next()`. Each is `async` and awaits `next()`,
 * as a real one (logging, timing) would.
 */
import type { McpServer, ServerInterceptor } from 'keel-mcp/server';
import { createBenchServer } from './keel-tools.js';

const noop: ServerInterceptor = async (_call, next) => await next();

/**
 * @example
 * await serveStdio(createInterceptedBenchServer());
 */
export function createInterceptedBenchServer(): McpServer {
  return createBenchServer().use(noop).use(noop).use(noop);
}
