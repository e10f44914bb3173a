/**
 * The writing end of one SSE response body. Every write is guarded: after the client went away or
 * the stream was ended, writes are dropped, never thrown.
 */
import type { RequestStream } from './request-stream.js';

const encoder = new TextEncoder();

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
 * return new Response(writer.body, { headers: { 'content-type': 'text/event-stream' } });
 */
export class SseWriter {
  readonly body: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private isOpen = true;
  /** While a resumption replays stored events, live events wait here (id, text). */
  private held: [string | undefined, string][] | undefined;

  constructor(
    private readonly owner: SseWriterOwner,
    private readonly keepAlive: KeepAlive | undefined,
    /** The request stream this connection carries; `undefined` for the standalone GET stream. */
    readonly stream: RequestStream | undefined,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        cancel: () => this.gone(),
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    keepAlive?.add(this);
  }

  get open(): boolean {
    return this.isOpen;
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
    try {
      this.controller?.close();
    } catch {
      // Already closed or cancelled by the consumer: nothing left to end.
    }
    this.owner.writerEnded(this, byClient);
  }

  private write(text: string): void {
    const controller = this.controller;
    if (!this.isOpen || !controller) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      this.gone();
      return;
    }
    // A client that stopped reading is treated like one that left: it can resume.
    if ((controller.desiredSize ?? 0) < -MAX_BUFFERED_BYTES) this.end(true);
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
