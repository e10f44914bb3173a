/**
 * `keel-mcp/stdio`: stdio transports for Node.js — the server side (`serveStdio`,
 * `StdioServerTransport`) and the client side (`StdioClientTransport`, which spawns the server).
 */
export { serveStdio, type ServeStdioOptions } from './serve-stdio.js';
export { StdioServerTransport, type StdioServerTransportOptions } from './stdio-server-transport.js';
export {
  DEFAULT_INPUT_HIGH_WATER_MARK,
  DEFAULT_OUTPUT_HIGH_WATER_MARK,
  type FlowStats,
  type StdioFlowOptions,
} from './flow-control.js';
export {
  StdioClientTransport,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  type StdioClientTransportOptions,
} from './stdio-client-transport.js';
export { defaultChildEnvironment } from './child-environment.js';
export type { ChildExitFields } from './child-exit.js';
export { STDERR_TAIL_BYTES, STDERR_TAIL_LINES } from './stderr-tail.js';
export { DEFAULT_MAX_MESSAGE_BYTES, LineSplitter, type LineSink } from './line-splitter.js';
export { parseLine } from './parse-line.js';
export { MessageReader, type MessageReaderOptions, type MessageSink } from './message-reader.js';
export { MessageWriter, type MessageWriterOptions } from './message-writer.js';
export { DEFAULT_PROGRESS_SPACING_MS } from './progress-spacing.js';
