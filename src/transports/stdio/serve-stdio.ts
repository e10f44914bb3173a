/**
 * `serveStdio(server)`: the one call a stdio MCP server needs.
 */
import type { Readable, Writable } from 'node:stream';
import type { ConnectionOptions, Logger } from '../../core/engine/connection.js';
import type { Connectable } from '../../server/server.js';
import type { StdioFlowOptions } from './flow-control.js';
import { StdioServerTransport } from './stdio-server-transport.js';

/**
 * @example
 * await serveStdio(server, { drainMs: 5_000, maxMessageBytes: 16 * 1024 * 1024 });
 */
export interface ServeStdioOptions extends StdioFlowOptions {
  /**
   * EOF policy. `0` (default): when stdin ends, abort every in-flight handler at once and answer
   * each request still unanswered with one `-32000 Connection closed` error (if stdout is still
   * open). `> 0`: first let accepted handlers finish for up to this many milliseconds (batch use,
   * `server < requests.jsonl > out.jsonl`); whatever is still running then is aborted and answered
   * as above.
   */
  drainMs?: number;
  /** Cap on one inbound message in bytes (default 4 MiB); see {@link StdioServerTransportOptions}. */
  maxMessageBytes?: number;
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. Reserved for protocol messages. */
  stdout?: Writable;
  /** Where the engine reports dropped writes and failing handlers. Never point it at stdout. */
  logger?: Logger;
  /** Aborting it closes the connection (same teardown as EOF, without a drain window). */
  signal?: AbortSignal;
  /** Other engine options (`answerOnClose`, `closeWriteTimeoutMs`, `requestDefaults`). */
  connection?: Omit<ConnectionOptions, 'drainMs' | 'logger'>;
}

/**
 * Serve `target` (a low-level `Server` or an `McpServer`) over stdin/stdout until stdin ends or
 * `signal` aborts. The promise settles — it never rejects — once teardown is complete: handlers
 * aborted, pending server→client requests failed, answers written, stdin released. Nothing is
 * left that keeps the process alive, so a server whose last line is `await serveStdio(server)`
 * exits with status 0 on EOF.
 *
 * EOF policy: by default EOF means shutdown — in-flight handlers are aborted at once (their
 * `ctx.signal` fires with a `ConnectionClosedError`) and each request still unanswered gets exactly
 * one `-32000` error while stdout is open; never a silent drop, never two answers. With `drainMs`
 * handlers first get that long to finish and answer normally.
 *
 * @example
 * const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } });
 * server.setRequestHandler('tools/list', () => ({ tools: [] }));
 * await serveStdio(server);
 * console.error('client went away');
 */
export async function serveStdio(target: Connectable, options: ServeStdioOptions = {}): Promise<void> {
  const transport = new StdioServerTransport({
    stdin: options.stdin,
    stdout: options.stdout,
    maxMessageBytes: options.maxMessageBytes,
    inputHighWaterMark: options.inputHighWaterMark,
    inputLowWaterMark: options.inputLowWaterMark,
    outputHighWaterMark: options.outputHighWaterMark,
    outputLowWaterMark: options.outputLowWaterMark,
  });
  // Only what the caller set: an explicit `undefined` would override the server's own defaults.
  const connection: ConnectionOptions = { ...options.connection };
  if (options.drainMs !== undefined) connection.drainMs = options.drainMs;
  if (options.logger !== undefined) connection.logger = options.logger;

  let session;
  try {
    session = target.connect(transport, connection);
  } catch (error) {
    options.logger?.error('serveStdio: connect failed', error);
    await transport.close();
    return;
  }
  const signal = options.signal;
  if (!signal) return session.closed;
  const onAbort = (): void => void session.close();
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  await session.closed;
  signal.removeEventListener('abort', onAbort);
}
