/**
 * Writes JSON-RPC messages as newline-delimited JSON to a Node `Writable`, with backpressure, and
 * turns every way the stream can die (EPIPE, `error`, `close`) into "not writable" instead of a
 * crash.
 *
 * Messages sent in the same tick go out as one `write` (one syscall on a pipe instead of one per
 * message): under load the engine answers many requests per tick, and a write per answer cost
 * more than everything else together.
 */
import type { Writable } from 'node:stream';
import { ConnectionClosedError } from '../../core/errors.js';
import type { JsonRpcMessage } from '../../core/jsonrpc.js';
import { guardErrors } from './message-reader.js';

/** A batch over this many characters is written at once instead of at the end of the tick. */
const FLUSH_AT = 64 * 1024;

const ignore = (): void => undefined;

/** The lines sent in one tick, and the promise every one of those sends returned. */
class Batch {
  text = '';
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (error: Error) => void;

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Shared by every send of the batch: a caller that drops its promise must not make the
    // rejection unhandled for everyone.
    this.done.catch(ignore);
  }
}

/**
 * @example
 * const writer = new MessageWriter(process.stdout);
 * await writer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
 * writer.release();
 */
export class MessageWriter {
  private open = true;
  private attached = true;
  private failure: unknown;
  /** Shared by every send made while the stream is over its high-water mark. */
  private drained: Promise<void> | undefined;
  private settleDrained: ((error?: Error) => void) | undefined;
  /** Lines sent this tick, not yet handed to the stream. */
  private batch: Batch | undefined;
  private flushScheduled = false;

  constructor(
    private readonly stream: Writable,
    /** Told once when the stream fails or closes under us. */
    private readonly onFailure?: (error: unknown) => void,
  ) {
    stream.on('error', this.onError);
    stream.on('close', this.onClose);
    stream.on('drain', this.onDrain);
  }

  /** False once released, or once the stream failed or closed. */
  get writable(): boolean {
    return this.open && !this.stream.destroyed && !this.stream.writableEnded;
  }

  /** The error that made the stream unusable, if any. */
  get error(): unknown {
    return this.failure;
  }

  /**
   * Write one message. It is handed to the stream at the end of the current tick, together with
   * the other messages sent in the same tick. Resolves once handed over, or — when the stream is
   * then over its high-water mark — once it drained. Rejects with {@link ConnectionClosedError}
   * when the stream is (or becomes) unusable first.
   */
  send(message: JsonRpcMessage): Promise<void> {
    if (!this.writable) return Promise.reject(this.closedError());
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      // A BigInt or a cycle fails this message only.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    let batch = this.batch;
    if (!batch) {
      batch = this.batch = new Batch();
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        process.nextTick(this.onTick);
      }
    }
    batch.text += line + '\n';
    const done = batch.done;
    if (batch.text.length >= FLUSH_AT) this.flush();
    return done;
  }

  /**
   * Stop writing and let go of the stream: pending drain waits settle at once. The stream itself
   * is left open (it may be `process.stdout`). Idempotent.
   */
  release(): void {
    // What was sent before the release still goes out (the shutdown answers, a last request); if
    // the stream can no longer take it, those sends settle like the drain waits below: the owner
    // let go, and its own teardown reports the true cause.
    this.flush(true);
    this.open = false;
    this.settle(undefined);
    if (!this.attached) return;
    this.attached = false;
    this.stream.off('error', this.onError);
    this.stream.off('close', this.onClose);
    this.stream.off('drain', this.onDrain);
    guardErrors(this.stream);
  }

  /** {@link release}, then end the stream (a child's stdin: that is how it learns we are done). */
  end(): void {
    this.release();
    if (!this.stream.destroyed && !this.stream.writableEnded) this.stream.end();
  }

  /** Hand the pending batch to the stream. */
  private flush(releasing = false): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    if (!this.writable) {
      if (releasing) batch.resolve();
      else batch.reject(this.closedError());
      return;
    }
    let ok: boolean;
    try {
      ok = this.stream.write(batch.text);
    } catch (error) {
      this.fail(error);
      batch.reject(this.closedError());
      return;
    }
    if (ok) batch.resolve();
    else this.waitForDrain().then(batch.resolve, batch.reject);
  }

  private readonly onTick = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  private waitForDrain(): Promise<void> {
    if (!this.drained) {
      this.drained = new Promise<void>((resolve, reject) => {
        this.settleDrained = (error) => (error === undefined ? resolve() : reject(error));
      });
      // The shared promise itself must never count as unhandled; callers handle their own copies.
      this.drained.catch(() => undefined);
    }
    return this.drained;
  }

  private settle(error: Error | undefined): void {
    const settle = this.settleDrained;
    this.drained = undefined;
    this.settleDrained = undefined;
    settle?.(error);
  }

  private fail(error: unknown): void {
    if (this.failure === undefined) this.failure = error;
    if (!this.open) return;
    this.open = false;
    this.settle(this.closedError());
    this.onFailure?.(error);
  }

  private closedError(): ConnectionClosedError {
    return new ConnectionClosedError('The output stream is closed', { cause: this.failure });
  }

  private readonly onError = (error: unknown): void => this.fail(error);

  private readonly onClose = (): void => this.fail(new Error('The output stream closed'));

  private readonly onDrain = (): void => this.settle(undefined);
}
