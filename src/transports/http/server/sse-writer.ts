/**
 * The writing end of one SSE response body. Every write is guarded: after the client went away or
 * the stream was ended, writes are dropped, never thrown. Events written before the host attached
 * its sink (the response was still on its way out) wait in order.
 */
import type { SseSink, SseSource } from './exchange.js';
import type { RequestStream } from './request-stream.js';

/** Queued bytes the client has not read beyond which it counts as gone (it may resume). */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Who learns that a writer ended. */
export interface SseWriterOwner {
  /** Called once per writer: `byClient` when the client went away, else a server-side end. */
  writerEnded(writer: SseWriter, byClient: boolean): void;
}

/**
 * One SSE response body (`text/event-stream`).
 *
 * @example
 * const writer = new SseWriter(owner, keepAlive, undefined);
 * writer.event('s:1_0', JSON.stringify(message));
 * return sseReply(writer, headers); // the host attaches its sink
 */
export class SseWriter implements SseSource {
  private sink: SseSink | undefined;
  /** Text written before a sink was attached. */
  private pending: string[] | undefined;
  private isOpen = true;
  /** While a resumption replays stored events, live events wait here (id, text). */
  private held: [string | undefined, string][] | undefined;

  constructor(
    private readonly owner: SseWriterOwner,
    private readonly keepAlive: KeepAlive | undefined,
    /** The request stream this connection carries; `undefined` for the standalone GET stream. */
    readonly stream: RequestStream | undefined,
  ) {
    keepAlive?.add(this);
  }

  get open(): boolean {
    return this.isOpen;
  }

  /** The host's sink: what was written so far goes out first. Called once. */
  attach(sink: SseSink): void {
    const pending = this.pending;
    this.pending = undefined;
    this.sink = sink;
    if (pending) for (const text of pending) if (!this.deliver(text)) break;
    // Ended before the host took the body: it still gets its end.
    if (!this.isOpen) sink.end();
  }

  /** A JSON-RPC message as an SSE event (with an id when the stream is resumable). */
  event(id: string | undefined, data: string): void {
    const text =
      id === undefined ? `event: message\ndata: ${data}\n\n` : `id: ${id}\nevent: message\ndata: ${data}\n\n`;
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
  }

  /** End the response body (server side). Idempotent. */
  close(): void {
    this.end(false);
  }

  /** The client went away (body cancelled, request aborted). Idempotent. */
  gone(): void {
    this.end(true);
  }

  private end(byClient: boolean): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.held = undefined;
    this.keepAlive?.delete(this);
    this.sink?.end();
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
    if (this.sink!.write(text) <= MAX_BUFFERED_BYTES) return true;
    this.end(true);
    return false;
  }
}

/**
 * One interval timer for the keep-alive comments of all open streams of a handler. It runs only
 * while a stream is open and never keeps the process alive.
 *
 * @example
 * const keepAlive = new KeepAlive(15_000);
 */
export class KeepAlive {
  private readonly writers = new Set<SseWriter>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly intervalMs: number) {}

  add(writer: SseWriter): void {
    this.writers.add(writer);
    if (this.timer === undefined) {
      this.timer = setInterval(tick, this.intervalMs, this.writers);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  delete(writer: SseWriter): void {
    this.writers.delete(writer);
    if (this.writers.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function tick(writers: Set<SseWriter>): void {
  for (const writer of writers) writer.comment('keep-alive');
}
