/**
 * Writes JSON-RPC messages as newline-delimited JSON to a Node `Writable`, with backpressure, and
 * turns every way the stream can die (EPIPE, `error`, `close`) into "not writable" instead of a
 * crash.
 */
import type { Writable } from 'node:stream';
import { ConnectionClosedError } from '../../core/errors.js';
import type { JsonRpcMessage } from '../../core/jsonrpc.js';
import { guardErrors } from './message-reader.js';

const RESOLVED = Promise.resolve();

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
   * Write one message. Resolves at once, or — when the stream is over its high-water mark — once
   * it drained. Rejects with {@link ConnectionClosedError} when the stream is (or becomes) unusable.
   */
  send(message: JsonRpcMessage): Promise<void> {
    if (!this.writable) return Promise.reject(this.closedError());
    let line: string;
    try {
      line = JSON.stringify(message) + '\n';
    } catch (error) {
      // A BigInt or a cycle fails this message only.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    let ok: boolean;
    try {
      ok = this.stream.write(line);
    } catch (error) {
      this.fail(error);
      return Promise.reject(this.closedError());
    }
    return ok ? RESOLVED : this.waitForDrain();
  }

  /**
   * Stop writing and let go of the stream: pending drain waits settle at once. The stream itself
   * is left open (it may be `process.stdout`). Idempotent.
   */
  release(): void {
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
