/**
 * `serveStdio(server)`: the one call a stdio MCP server needs.
 */
import type { Readable, Writable } from 'node:stream';
import type { ConnectionOptions, Logger } from '../../core/engine/connection.js';
import type { Connectable } from '../../server/server.js';
import type { StdioFlowOptions } from '../../transports/stdio/flow-control.js';
import { StdioServerTransport } from '../../transports/stdio/stdio-server-transport.js';

/**
 * @example
 * await serveStdio(server, { drainMs: 5_000, maxMessageBytes: 16 * 1024 * 1024 });
 */
export interface ServeStdioOptions extends StdioFlowOptions {
  /**
   * EOF policy, drain window. `0` (default): when stdin ends, abort every in-flight handler at
   * once. `> 0`: first let accepted handlers finish and answer normally for up to this many
   * milliseconds (batch use, `server < requests.jsonl > out.jsonl`); whatever is still running
   * then is aborted.
   */
  drainMs?: number;
  /**
   * EOF policy, shutdown answers. Default: after EOF nothing more is written for aborted requests
   * (the client is leaving; an answer during its teardown has crashed real clients), while a local
   * close (`signal`) answers each one with `-32000 Connection closed`. `true`: answer them after
   * EOF too, for clients that half-close stdin and keep reading. Never two answers per request.
   */
  answerOnClose?: boolean;
  /** Cap on one inbound message in bytes (default 4 MiB); see {@link StdioServerTransportOptions}. */
  maxMessageBytes?: number;
  /**
   * Milliseconds between a request's last progress notification and its answer (default 10; 0:
   * off); see {@link StdioServerTransportOptions}.
   */
  progressSpacingMs?: number | undefined;
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. Reserved for protocol messages. */
  stdout?: Writable;
  /** Where the engine reports dropped writes and failing handlers. Never point it at stdout. */
  logger?: Logger;
  /** Aborting it closes the connection (same teardown as EOF, without a drain window). */
  signal?: AbortSignal;
  /** Other engine options (`maxInflight`, `maxQueued`, `closeWriteTimeoutMs`, `requestDefaults`). */
  connection?: Omit<ConnectionOptions, 'drainMs' | 'logger'>;
}

/**
 * Serve `target` (a low-level `Server` or an `McpServer`) over stdin/stdout until stdin ends or
 * `signal` aborts. The promise settles — it never rejects — once teardown is complete: handlers
 * aborted, pending server→client requests failed, answers written, stdin released. Nothing is
 * left that keeps the process alive, so a server whose last line is `await serveStdio(server)`
 * exits with status 0 on EOF.
 *
 * EOF policy (docs/stdio.md): by default EOF means shutdown — in-flight handlers are aborted at
 * once (their `ctx.signal` fires with a `ConnectionClosedError`) and nothing more is written for
 * them. `drainMs` gives them that long to finish and answer first; `answerOnClose: true` answers
 * each request still unanswered with one `-32000` error. Never two answers for one request.
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
    progressSpacingMs: options.progressSpacingMs,
    inputHighWaterMark: options.inputHighWaterMark,
    inputLowWaterMark: options.inputLowWaterMark,
    outputHighWaterMark: options.outputHighWaterMark,
    outputLowWaterMark: options.outputLowWaterMark,
  });
  // Only what the caller set: an explicit `undefined` would override the server's own defaults.
  const connection: ConnectionOptions = { ...options.connection };
  if (options.drainMs !== undefined) connection.drainMs = options.drainMs;
  if (options.answerOnClose !== undefined) connection.answerOnClose = options.answerOnClose;
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
