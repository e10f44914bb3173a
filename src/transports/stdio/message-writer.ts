/**
 * Writes JSON-RPC messages as newline-delimited JSON to a Node `Writable`, with backpressure, and
 * turns every way the stream can die (EPIPE, `error`, `close`) into "not writable" instead of a
 * crash.
 *
 * Messages sent in the same tick go out as one `write` (one syscall on a pipe instead of one per
 * message): under load the engine answers many requests per tick, and a write per answer cost
 * more than everything else together.
 *
 * One exception: the answer to a request whose progress notification was written a moment ago
 * waits until `progressSpacingMs` after that write (see {@link ProgressSpacing}: the official SDK
 * clients lose the last progress when it arrives in one read with the answer). What is sent after
 * such an answer waits with it, so the order on the wire stays the order of the sends. Only
 * answers that follow their own progress pay: without progress on the connection the writer does
 * not look.
 *
 * Once the stream says it is full (`write` returned false), nothing more is written to it until
 * `drain`: later batches wait here, and are written together when it drains (progress and answers
 * included: a peer that does not read gets whatever waited in one read anyway). `queuedBytes`
 * tells the owner how much output waits (here and in the stream), so it can stop reading input
 * while a peer does not read its output.
 */
import type { Writable } from 'node:stream';
import { ConnectionClosedError } from '../../core/errors.js';
import type { JsonRpcMessage, RequestId } from '../../core/jsonrpc.js';
import { stringifyMessage } from '../../core/stringify-message.js';
import { guardErrors } from './message-reader.js';
import { DEFAULT_PROGRESS_SPACING_MS, progressOwner, ProgressSpacing } from './progress-spacing.js';
import { WriteBatch as Batch } from './write-batch.js';

/** A batch over this many characters is written at once instead of at the end of the tick. */
const FLUSH_AT = 64 * 1024;

/**
 * @example
 * new MessageWriter(process.stdout, undefined, undefined, { progressSpacingMs: 20 });
 */
export interface MessageWriterOptions {
  /**
   * Write a request's answer no sooner than this many milliseconds after the last write that
   * carried its progress (see {@link ProgressSpacing}). Default 10; 0 turns it off.
   */
  progressSpacingMs?: number | undefined;
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
  /** Undefined when turned off: progress is then not even looked for. */
  private readonly spacing: ProgressSpacing | undefined;
  /** Closed batches waiting for their time, oldest first; an open `batch` waiting too comes after them. */
  private gapQueue: Batch[] = [];
  /** Writes the first batch waiting for its time, when that comes. */
  private gapTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly stream: Writable,
    /** Told once when the stream fails or closes under us. */
    private readonly onFailure?: (error: unknown) => void,
    /** Told when {@link queuedBytes} may have changed (after a send, a write, a drain). */
    private readonly onQueueChange?: () => void,
    options: MessageWriterOptions = {},
  ) {
    const spacingMs = options.progressSpacingMs ?? DEFAULT_PROGRESS_SPACING_MS;
    if (spacingMs > 0) this.spacing = new ProgressSpacing(spacingMs);
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
    let waiting = (this.batch?.text.length ?? 0) + this.heldChars + this.stream.writableLength;
    for (const batch of this.gapQueue) waiting += batch.text.length;
    return waiting;
  }

  /**
   * Write one message. It is handed to the stream at the end of the current tick, together with
   * the other messages sent in the same tick (an answer right after its request's progress: a
   * few milliseconds later, see the file comment). Resolves once handed over, or — when the
   * stream is then full — once it drained. Rejects with {@link ConnectionClosedError} when the
   * stream is (or becomes) unusable first.
   *
   * `relatedRequestId` is the request a notification belongs to (the engine's `SendOptions`); it
   * tells which answer a progress notification must be kept apart from.
   */
  send(message: JsonRpcMessage, relatedRequestId?: RequestId): Promise<void> {
    if (!this.writable) return Promise.reject(this.closedError());
    let line: string;
    try {
      line = stringifyMessage(message);
    } catch (error) {
      // A BigInt or a cycle fails this message only.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    let batch = this.batch;
    const spacing = this.spacing;
    let owner: RequestId | undefined;
    if (spacing) {
      const fields = message as { method?: unknown; id?: unknown; params?: unknown };
      // An answer is looked at only while progress is about: free on a connection without any.
      if (
        fields.method === undefined &&
        (spacing.tracking || batch?.progress !== undefined || this.gapQueue.length > 0)
      )
        batch = this.placeAnswer(spacing, fields.id as RequestId);
      else owner = progressOwner(fields, relatedRequestId);
    }
    if (!batch) {
      batch = this.batch = new Batch();
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        process.nextTick(this.onTick);
      }
    }
    batch.text += line + '\n';
    if (owner !== undefined) batch.addProgress(owner);
    const done = batch.done;
    // A batch waiting for its time stays whole: written early, it would join the progress.
    if (batch.text.length >= FLUSH_AT && !batch.afterGap) this.flush();
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
    this.stopGapTimer();
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

  /**
   * Hand the pending batch to the stream, or hold it while the stream is full. A batch waiting for
   * its time stays (the timer writes it), unless the owner is releasing us.
   */
  private flush(releasing = false): void {
    if (releasing) this.holdGapQueue();
    const batch = this.batch;
    if (batch && (!batch.afterGap || releasing)) {
      this.batch = undefined;
      this.hold(batch);
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

  private hold(batch: Batch): void {
    this.held.push(batch);
    this.heldChars += batch.text.length;
  }

  /** Move every batch waiting for its time to `held`, in order (release, failure). */
  private holdGapQueue(): void {
    for (const waiting of this.gapQueue.splice(0)) this.hold(waiting);
    if (this.batch?.afterGap) {
      this.hold(this.batch);
      this.batch = undefined;
    }
  }

  /**
   * The batch an answer to request `id` goes into: the open one, unless the answer must wait for
   * the spacing after `id`'s progress; then a batch that waits for it (everything sent after the
   * answer joins it, keeping the order).
   */
  private placeAnswer(spacing: ProgressSpacing, id: RequestId): Batch | undefined {
    let open = this.batch;
    if (open?.afterGap) {
      if (open.progress?.has(id)) {
        // Its progress waits in that batch: the answer goes the spacing after that batch's write.
        spacing.answerTime(id);
        this.gapQueue.push(open);
        return this.openGapBatch(0, true);
      }
      // Waiting already; the answer only moves the time (batches behind a queued one wait the
      // spacing after it, so progress in the queue is covered too).
      open.notBefore = Math.max(open.notBefore, spacing.answerTime(id));
      this.startGapTimer();
      return open;
    }
    // Its progress is still in the open batch: that goes now, the answer after the spacing.
    if (open?.progress?.has(id)) {
      this.flush();
      open = this.batch;
    }
    const time = spacing.answerTime(id);
    if (time === 0 || time <= performance.now()) return open;
    // What was sent before the answer goes at the end of the tick as usual; the answer waits.
    if (open) this.flush();
    return this.openGapBatch(time, false);
  }

  private openGapBatch(notBefore: number, afterPrevious: boolean): Batch {
    const batch = (this.batch = new Batch());
    batch.afterGap = true;
    batch.notBefore = notBefore;
    batch.afterPrevious = afterPrevious;
    this.startGapTimer();
    return batch;
  }

  /** Time the first batch waiting for its time (a queued one, else the open one). */
  private startGapTimer(): void {
    const first = this.gapQueue[0] ?? (this.batch?.afterGap ? this.batch : undefined);
    if (!first) return;
    this.stopGapTimer();
    this.gapTimer = setTimeout(this.onGapTime, Math.max(0, first.notBefore - performance.now()));
  }

  private stopGapTimer(): void {
    if (this.gapTimer !== undefined) clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
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
    if (this.spacing)
      for (const batch of batches)
        if (batch.progress !== undefined) this.spacing.wrote(batch.progress, performance.now());
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

  /** The first batch waiting for its time goes out; the one after it waits the spacing after it. */
  private readonly onGapTime = (): void => {
    this.gapTimer = undefined;
    const first = this.gapQueue.shift();
    if (first) this.hold(first);
    else if (this.batch?.afterGap) this.batch.afterGap = false;
    this.flush();
    const next = this.gapQueue[0] ?? (this.batch?.afterGap ? this.batch : undefined);
    if (next?.afterPrevious)
      next.notBefore = Math.max(next.notBefore, performance.now() + (this.spacing?.spacingMs ?? 0));
    this.startGapTimer();
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
    this.stopGapTimer();
    this.holdGapQueue();
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
