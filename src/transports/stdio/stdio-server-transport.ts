/**
 * The server side of stdio: read JSON-RPC lines from stdin, write them to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import type { JsonRpcMessage } from '../../core/jsonrpc.js';
import type { SendOptions, Transport } from '../../core/transport.js';
import { FlowControl, type FlowStats, type StdioFlowOptions } from './flow-control.js';
import { MessageReader } from './message-reader.js';
import { MessageWriter } from './message-writer.js';
import { MeteredInbox } from './metered-inbox.js';

/**
 * @example
 * new StdioServerTransport({ maxMessageBytes: 1024 * 1024 });
 */
export interface StdioServerTransportOptions extends StdioFlowOptions {
  /** Where messages come from. Default `process.stdin`. */
  stdin?: Readable | undefined;
  /** Where messages go; nothing else may be written to it. Default `process.stdout`. */
  stdout?: Writable | undefined;
  /**
   * Cap on one inbound message (a line) in bytes. A longer line is discarded as it streams in (it
   * is never buffered whole) and answered with a `-32600` error with id `null`. Default 4 MiB.
   */
  maxMessageBytes?: number | undefined;
  /**
   * Write a request's answer no sooner than this many milliseconds after the last write that
   * carried its progress notification, so that clients reading both at once (the official SDK
   * clients then drop that progress) get them in separate reads. Default 10; 0 turns it off.
   * Answers to requests that sent no progress are not delayed.
   */
  progressSpacingMs?: number | undefined;
}

/**
 * A {@link Transport} over a process's stdin/stdout (or any byte streams).
 *
 * - Each line of stdin is one message; `\r\n` is accepted, blank lines are skipped. Invalid UTF-8
 *   and invalid JSON are answered with `-32700` (id `null`), an over-long line with `-32600`; the
 *   connection keeps serving.
 * - EOF on stdin ends the iteration (the engine then tears down); stdout stays writable so the
 *   engine can still answer, as the EOF policy says.
 * - A dead stdout (EPIPE, `error`, `close`) makes the transport not writable and is recorded as
 *   `lastError`; it never throws or crashes the process.
 * - `close()` stops reading (stdin is paused, so the process can exit) and stops writing. It does
 *   not end or destroy `process.stdout`.
 * - Backpressure: stdin is paused while the messages read but not yet taken by the engine, or the
 *   output not yet taken by the peer, are over their high-water marks, and resumed below the
 *   low-water marks (see {@link StdioFlowOptions}; {@link stats} shows the figures). Pausing loses
 *   nothing, and EOF is still seen after the resume.
 *
 * Most servers use {@link serveStdio} instead of building this by hand.
 *
 * @example
 * const session = server.connect(new StdioServerTransport());
 * await session.closed;
 */
export class StdioServerTransport implements Transport {
  private readonly inbox: MeteredInbox;
  private readonly reader: MessageReader;
  private readonly writer: MessageWriter;
  private readonly flow: FlowControl;
  private readonly stdin: Readable;
  private closed = false;
  private inputError: unknown;

  constructor(options: StdioServerTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    // The parts reach each other only through `flow`, which needs them all, so it comes last.
    let flow: FlowControl | undefined;
    const update = (): void => flow?.update();
    this.inbox = new MeteredInbox(update);
    this.writer = new MessageWriter(options.stdout ?? process.stdout, undefined, update, {
      progressSpacingMs: options.progressSpacingMs,
    });
    this.reader = new MessageReader(this.stdin, this.inbox, {
      maxMessageBytes: options.maxMessageBytes,
      onEnd: (error) => {
        if (error !== undefined) this.inputError = error;
        this.inbox.end();
      },
    });
    this.flow = flow = new FlowControl(this.inbox, this.writer, this.reader, options);
  }

  /**
   * Backpressure figures: what is buffered now, the peaks since the start, whether stdin is
   * paused and how often it was. Read-only, for monitoring and tests.
   *
   * @example
   * const { peakQueuedOutputBytes, pauses } = transport.stats;
   */
  get stats(): FlowStats {
    return this.flow.stats;
  }

  get writable(): boolean {
    return !this.closed && this.writer.writable;
  }

  /** The last I/O error seen on stdout or stdin. */
  get lastError(): unknown {
    return this.writer.error ?? this.inputError;
  }

  /** True once stdin ended (EOF, error or close). */
  get inputEnded(): boolean {
    return this.reader.done;
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    return this.writer.send(message, options?.relatedRequestId);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.reader.detach();
    void this.inbox.return();
    this.writer.release();
    return Promise.resolve();
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return this.inbox;
  }
}
