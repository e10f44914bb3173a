/**
 * Reads newline-delimited JSON-RPC messages from a Node `Readable` into an inbox, and can pause
 * between two lines without losing a byte (backpressure).
 */
import type { Readable } from 'node:stream';
import { DEFAULT_MAX_MESSAGE_BYTES, LineSplitter } from './line-splitter.js';
import { oversizeFault, parseAsciiLine, parseLine } from './parse-line.js';

/** @example new MessageReader(process.stdin, inbox, { onEnd: (error) => console.error('EOF', error) }); */
export interface MessageReaderOptions {
  /** Cap on one message in bytes. Default {@link DEFAULT_MAX_MESSAGE_BYTES} (4 MiB). */
  maxMessageBytes?: number | undefined;
  /**
   * The stream ended (EOF, `error` or `close`); `error` is set when it failed. Called once.
   * Without it the inbox is ended at once; with it, ending the inbox is the callback's job (the
   * child-process transport first waits for the exit status).
   */
  onEnd?: (error?: unknown) => void;
}

/**
 * Where a {@link MessageReader} puts what it parsed: the core `Inbox`, or the stdio server's
 * `MeteredInbox` (which also counts the bytes of each message).
 *
 * @example
 * const sink: MessageSink = { push: (item, bytes) => console.error(bytes, item), end() {} };
 */
export interface MessageSink {
  push(item: unknown, bytes: number): void;
  end(): void;
}

/**
 * Attaches to a readable byte stream, splits it into lines, parses each and pushes the result into
 * `inbox`. When the stream ends, fails or closes, the inbox is ended (or `onEnd` is told).
 * `detach()` stops reading. `pause()` stops reading right after the current line (the rest of the
 * chunk goes back to the stream with `unshift`), `resume()` carries on where it stopped: nothing is
 * lost, and EOF is still seen once everything before it was read.
 *
 * @example
 * const inbox = new Inbox<unknown>();
 * const reader = new MessageReader(child.stdout, inbox);
 * for await (const message of inbox) handle(message);
 * reader.detach();
 */
export class MessageReader {
  // Not `implements LineSink`: the members that satisfy it are @internal, so in the published
  // .d.ts (stripInternal) the clause would fail to compile. Passing `this` where it is expected
  // checks the shape.
  private readonly splitter: LineSplitter;
  private attached = true;
  private ended = false;
  private paused = false;

  constructor(
    private readonly stream: Readable,
    private readonly inbox: MessageSink,
    private readonly options: MessageReaderOptions = {},
  ) {
    this.splitter = new LineSplitter(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, this);
    stream.on('data', this.onData);
    stream.on('end', this.onEnd);
    stream.on('error', this.onError);
    stream.on('close', this.onClose);
  }

  /** True once the stream ended, failed or closed. */
  get done(): boolean {
    return this.ended;
  }

  /** @internal LineSink */
  line(bytes: Uint8Array): boolean {
    const item = parseLine(bytes);
    // The push may make the owner call pause(): then the splitter stops after this line.
    if (item !== undefined) this.inbox.push(item, bytes.length + 1);
    return !this.paused;
  }

  /** @internal LineSink: an ASCII line, decoded with its whole chunk. */
  text(line: string): boolean {
    const item = parseAsciiLine(line);
    if (item !== undefined) this.inbox.push(item, line.length + 1);
    return !this.paused;
  }

  /** @internal LineSink */
  oversize(maxBytes: number): void {
    this.inbox.push(oversizeFault(maxBytes), 0);
  }

  /** True while reading is paused by {@link pause}. */
  get isPaused(): boolean {
    return this.paused;
  }

  /** Stop reading after the current line, until {@link resume}. Idempotent. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    if (this.attached) this.stream.pause();
  }

  /** Carry on reading where {@link pause} stopped. Idempotent. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.attached) this.stream.resume();
  }

  /**
   * Stop reading: remove the data listeners and pause the stream, so a `process.stdin` no longer
   * keeps the event loop alive. An error listener stays: a late error must not crash the process.
   */
  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    this.stream.off('close', this.onClose);
    this.stream.off('error', this.onError);
    guardErrors(this.stream);
    this.stream.pause();
  }

  /** Keep consuming (and discarding) input, so a writer blocked on a full pipe can make progress. */
  discardRest(): void {
    if (!this.attached) return;
    this.detach();
    this.stream.on('data', ignore);
    this.stream.resume();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.paused) {
      // A chunk the stream delivered although we paused: keep it for later, unread.
      this.stream.unshift(bytes);
      return;
    }
    const used = this.splitter.push(bytes);
    // Paused mid-chunk: the unread lines go back to the front of the stream's buffer, so they are
    // read first on resume and `end` cannot be emitted before them.
    if (used < bytes.length) this.stream.unshift(bytes.subarray(used));
  };

  private readonly onEnd = (): void => {
    this.splitter.end();
    this.finish(undefined);
  };

  private readonly onError = (error: unknown): void => this.finish(error);

  private readonly onClose = (): void => this.finish(undefined);

  private finish(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const onEnd = this.options.onEnd;
    if (onEnd) onEnd(error);
    else this.inbox.end();
  }
}

function ignore(): void {}

/**
 * Leave a no-op `error` listener on a stream we used, once: an error after we let go (EPIPE on a
 * write made before close, a destroyed pipe) must not become an uncaught exception.
 *
 * @example
 * guardErrors(process.stdout);
 */
export function guardErrors(stream: NodeJS.EventEmitter): void {
  if (!stream.listeners('error').includes(ignore)) stream.on('error', ignore);
}
