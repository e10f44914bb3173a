/**
 * Writes JSON-RPC messages as newline-delimited JSON to a Node `Writable`, with backpressure, and
 * turns every way the stream can die (EPIPE, `error`, `close`) into "not writable" instead of a
 * crash.
 *
 * Messages sent in the same tick go out as one `write` (one syscall on a pipe instead of one per
 * message): under load the engine answers many requests per tick, and a write per answer cost
 * more than everything else together.
 *
 * Once the stream says it is full (`write` returned false), nothing more is written to it until
 * `drain`: later batches wait here, and are written together when it drains. `queuedBytes` tells
 * the owner how much output waits (here and in the stream), so it can stop reading input while a
 * peer does not read its output.
 */
import type { Writable } from 'node:stream';
import { ConnectionClosedError } from '../../core/errors.js';
import type { JsonRpcMessage } from '../../core/jsonrpc.js';
import { stringifyMessage } from '../../core/stringify-message.js';
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
  /** Lines sent this tick, not yet handed to the stream. */
  private batch: Batch | undefined;
  private flushScheduled = false;
  /** The stream is full: batches wait in `held` until it drains. */
  private full = false;
  /** Batches handed to the stream when it became full: they settle on `drain`. */
  private draining: Batch[] = [];
  /** Batches not yet handed to the stream because it is full. */
  private held: Batch[] = [];
  private heldChars = 0;

  constructor(
    private readonly stream: Writable,
    /** Told once when the stream fails or closes under us. */
    private readonly onFailure?: (error: unknown) => void,
    /** Told when {@link queuedBytes} may have changed (after a send, a write, a drain). */
    private readonly onQueueChange?: () => void,
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
   * Output sent and not yet taken by the stream's destination: the stream's own buffer in bytes,
   * plus what waits here (in UTF-16 units, the same as bytes for ASCII JSON). 0 once the stream
   * is dead or released: nothing of it will be written by us any more.
   */
  get queuedBytes(): number {
    if (!this.writable) return 0;
    return (this.batch?.text.length ?? 0) + this.heldChars + this.stream.writableLength;
  }

  /**
   * Write one message. It is handed to the stream at the end of the current tick, together with
   * the other messages sent in the same tick. Resolves once handed over, or — when the stream is
   * then full — once it drained. Rejects with {@link ConnectionClosedError} when the stream is
   * (or becomes) unusable first.
   */
  send(message: JsonRpcMessage): Promise<void> {
    if (!this.writable) return Promise.reject(this.closedError());
    let line: string;
    try {
      line = stringifyMessage(message);
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
    this.onQueueChange?.();
    return done;
  }

  /**
   * Stop writing and let go of the stream: pending drain waits settle at once. The stream itself
   * is left open (it may be `process.stdout`). Idempotent.
   */
  release(): void {
    // What was sent before the release still goes out (the shutdown answers, a last request),
    // drained or not; if the stream can no longer take it, those sends settle like the drain
    // waits below: the owner let go, and its own teardown reports the true cause.
    this.flush(true);
    this.open = false;
    this.settleWaiting(undefined);
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

  /** Hand the pending batch to the stream, or hold it while the stream is full. */
  private flush(releasing = false): void {
    const batch = this.batch;
    if (batch) {
      this.batch = undefined;
      this.held.push(batch);
      this.heldChars += batch.text.length;
    }
    if (this.held.length === 0) return;
    if (!this.writable) {
      const held = this.takeHeld(Infinity);
      for (const waiting of held) {
        if (releasing) waiting.resolve();
        else waiting.reject(this.closedError());
      }
      return;
    }
    // Releasing: the owner is done, so what waits goes out now, full or not.
    while (this.held.length > 0 && (!this.full || releasing)) this.writeOut(this.takeHeld(FLUSH_AT));
    if (releasing && this.full) for (const waiting of this.draining.splice(0)) waiting.resolve();
  }

  /** Take held batches from the front, up to about `chars` characters (at least one batch). */
  private takeHeld(chars: number): Batch[] {
    let count = 0;
    let taken = 0;
    while (count < this.held.length && (count === 0 || taken < chars)) {
      taken += (this.held[count] as Batch).text.length;
      count++;
    }
    this.heldChars -= taken;
    return this.held.splice(0, count);
  }

  private writeOut(batches: Batch[]): void {
    const text = batches.length === 1 ? (batches[0] as Batch).text : batches.map((b) => b.text).join('');
    let ok: boolean;
    try {
      ok = this.stream.write(text, this.afterWrite);
    } catch (error) {
      this.fail(error);
      for (const batch of batches) batch.reject(this.closedError());
      return;
    }
    if (ok) for (const batch of batches) batch.resolve();
    else {
      this.full = true;
      for (const batch of batches) this.draining.push(batch);
    }
  }

  // The stream took a write: its queue shrank, even when it never became full (no `drain` then).
  private readonly afterWrite = (): void => this.onQueueChange?.();

  private readonly onTick = (): void => {
    this.flushScheduled = false;
    this.flush();
    this.onQueueChange?.();
  };

  private readonly onDrain = (): void => {
    if (!this.full) return;
    this.full = false;
    for (const batch of this.draining.splice(0)) batch.resolve();
    this.flush();
    this.onQueueChange?.();
  };

  /** Settle every send still waiting for the stream (release: resolve; failure: reject). */
  private settleWaiting(error: Error | undefined): void {
    const waiting = [...this.draining.splice(0), ...this.takeHeld(Infinity)];
    this.full = false;
    for (const batch of waiting) {
      if (error === undefined) batch.resolve();
      else batch.reject(error);
    }
  }

  private fail(error: unknown): void {
    if (this.failure === undefined) this.failure = error;
    if (!this.open) return;
    this.open = false;
    this.settleWaiting(this.closedError());
    // Nothing queued can drain any more: whoever paused on our backlog must look again (a reader
    // paused for output would otherwise never see EOF).
    this.onQueueChange?.();
    this.onFailure?.(error);
  }

  private closedError(): ConnectionClosedError {
    return new ConnectionClosedError('The output stream is closed', { cause: this.failure });
  }

  private readonly onError = (error: unknown): void => this.fail(error);

  private readonly onClose = (): void => this.fail(new Error('The output stream closed'));
}
