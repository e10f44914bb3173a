/**
 * `keel-mcp/stdio`: stdio for Node.js — the server host (`serveStdio`), and from the transports
 * layer the server side's transport (`StdioServerTransport`) and the client side
 * (`StdioClientTransport`, which spawns the server).
 */
export { serveStdio, type ServeStdioOptions } from './serve-stdio.js';
export {
  StdioServerTransport,
  type StdioServerTransportOptions,
} from '../../transports/stdio/stdio-server-transport.js';
export {
  DEFAULT_INPUT_HIGH_WATER_MARK,
  DEFAULT_OUTPUT_HIGH_WATER_MARK,
  type FlowStats,
  type StdioFlowOptions,
} from '../../transports/stdio/flow-control.js';
export {
  StdioClientTransport,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  type StdioClientTransportOptions,
} from '../../transports/stdio/stdio-client-transport.js';
export { defaultChildEnvironment } from '../../transports/stdio/child-environment.js';
export type { ChildExitFields } from '../../transports/stdio/child-exit.js';
export { DEFAULT_MAX_MESSAGE_BYTES } from '../../transports/stdio/line-splitter.js';
export { DEFAULT_PROGRESS_SPACING_MS } from '../../transports/stdio/progress-spacing.js';
