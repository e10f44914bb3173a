/**
 * The writing end of one SSE response body. Every write is guarded: after the client went away or
 * the stream was ended, writes are dropped, never thrown. Events written before the host attached
 * its sink (the response was still on its way out) wait in order.
 */
import { unrefTimer } from '../../../core/timers.js';
import type { Budgeted } from './output-budget.js';
import type { SseSink, SseSource, SseWriterOwner, StreamHost } from './types.js';

/** The longest a close waits for held events (see {@link SseWriter.close}). */
const MAX_CLOSE_WAIT_MS = 1_000;

function endHeld(writer: SseWriter): void {
  writer.endHeld();
}

/**
 * One SSE response body (`text/event-stream`).
 *
 * @example
 * const writer = new SseWriter(owner, host);
 * writer.event('s:1_0', JSON.stringify(message));
 * return sseReply(writer, headers); // the host attaches its sink
 */
export class SseWriter implements SseSource, Budgeted {
  private sink: SseSink | undefined;
  /** Text written before a sink was attached. */
  private pending: string[] | undefined;
  private isOpen = true;
  /** While a resumption replays stored events, live events wait here (id, text). */
  private held: [string | undefined, string][] | undefined;
  /** `close()` came while events were held: end once they are written. */
  private closeWhenReleased = false;
  /** Ends a deferred close even if the held events are never released (a store that hangs). */
  private closeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** The request stream this connection carries, or the transport (standalone GET stream). */
    readonly owner: SseWriterOwner,
    private readonly host: Pick<StreamHost, 'keepAlive' | 'budget' | 'logger' | 'retryMs'>,
  ) {
    host.keepAlive?.add(this);
  }

  get open(): boolean {
    return this.isOpen;
  }

  /** The host's sink: what was written so far goes out first. Called once. */
  attach(sink: SseSink): void {
    const pending = this.pending;
    this.pending = undefined;
    this.sink = sink;
    const endedBefore = !this.isOpen;
    if (pending) for (const text of pending) if (!this.deliver(text)) break;
    // Ended before the host took the body: it still gets its end, after what was written.
    if (endedBefore) sink.end();
  }

  /** A JSON-RPC message as an SSE event (with an id when the stream is resumable). */
  event(id: string | undefined, data: string): void {
    const text =
      id === undefined ? `event: message\ndata: ${data}\n\n` : `id: ${id}\nevent: message\ndata: ${data}\n\n`;
    // After a deferred close, only what was held before it goes out.
    if (this.closeWhenReleased) return;
    if (this.held) this.held.push([id, text]);
    else this.write(text);
  }

  /** A stored event replayed on resumption: written at once, even while live events are held. */
  replayed(id: string, data: string): void {
    this.write(`id: ${id}\nevent: message\ndata: ${data}\n\n`);
  }

  /** The priming event: an id and empty data, with the reconnection delay. */
  prime(id: string, retryMs: number): void {
    this.write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** An SSE comment (ignored by clients); keeps proxies from closing an idle stream. */
  comment(text: string): void {
    if (!this.held) this.write(`: ${text}\n\n`);
  }

  /** Start queuing live events (a resumption is replaying stored ones first). */
  hold(): void {
    this.held ??= [];
  }

  /** Write the queued live events, skipping those the replay already wrote. */
  release(written: ReadonlySet<string>): void {
    const held = this.held;
    this.held = undefined;
    if (!held) return;
    for (const [id, text] of held) if (id === undefined || !written.has(id)) this.write(text);
    if (this.closeWhenReleased) this.end(false);
  }

  /**
   * End the response body (server side). Idempotent. While events are held (an asynchronous
   * store has not yet given the priming event its id, or a resumption is catching up), the end
   * waits for them: ending at once would drop them, and a stream closed before its priming
   * event leaves the client nothing to resume from. The wait is bounded (the reconnection
   * delay, at most {@link MAX_CLOSE_WAIT_MS}): a store that never answers cannot keep the
   * response open; the held events are then dropped (the client resumes from what it has).
   */
  close(): void {
    if (!this.held) return this.end(false);
    if (this.closeWhenReleased) return;
    this.closeWhenReleased = true;
    const waitMs = Math.min(Math.max(this.host.retryMs, 0), MAX_CLOSE_WAIT_MS);
    this.closeTimer = unrefTimer(setTimeout(endHeld, waitMs, this));
  }

  /** @internal The deferred close waited long enough: end without the held events. */
  endHeld(): void {
    this.closeTimer = undefined;
    if (!this.isOpen) return;
    this.host.logger.debug('ended an SSE stream whose held events the event store never released');
    this.end(false);
  }

  /** The client went away (body cancelled, request aborted). Idempotent. */
  gone(): void {
    this.end(true);
  }

  /** The client stopped reading: abort the response (its backlog is freed). Idempotent. */
  cut(): void {
    if (!this.isOpen) return;
    this.host.logger.debug('cut an SSE connection: the client stopped reading its queued output');
    this.end(true, true);
  }

  queuedNow(): number {
    return this.sink?.queued() ?? 0;
  }

  private end(byClient: boolean, abort = false): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.held = undefined;
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
    this.host.keepAlive?.delete(this);
    this.host.budget.remove(this);
    if (abort) this.sink?.abort();
    else this.sink?.end();
    this.owner.writerEnded(this, byClient);
  }

  private write(text: string): void {
    if (!this.isOpen) return;
    // Before the host attached its sink (the reply is on its way out): keep the order.
    if (this.sink) this.deliver(text);
    else (this.pending ??= []).push(text);
  }

  /** False when the client counts as gone: it left, or stopped reading (it can resume). */
  private deliver(text: string): boolean {
    const sink = this.sink!;
    const backlog = sink.write(text);
    // Flushing the body of a writer that ended before its sink came: nothing left to police.
    if (!this.isOpen) return backlog !== Number.POSITIVE_INFINITY;
    if (backlog === Number.POSITIVE_INFINITY) {
      this.end(true);
      return false;
    }
    // Judged on what was queued before this chunk: one large message is not a stall.
    if (backlog > this.host.budget.perStream) {
      this.cut();
      return false;
    }
    return this.host.budget.update(this, sink.queued());
  }
}
