/**
 * Splits a byte stream into newline-delimited lines with a hard cap on how much of one line is
 * ever held in memory.
 */
import { Buffer, isAscii } from 'node:buffer';

/**
 * Default cap on one stdio message (a line, without its newline): 4 MiB.
 *
 * @example
 * await serveStdio(server, { maxMessageBytes: 4 * DEFAULT_MAX_MESSAGE_BYTES });
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const NEWLINE = 10;

/**
 * Where a {@link LineSplitter} delivers what it found.
 *
 * @example
 * const sink: LineSink = {
 *   line: (bytes) => console.error(new TextDecoder().decode(bytes)),
 *   oversize: (max) => console.error(`line over ${max} bytes skipped`),
 * };
 */
export interface LineSink {
  /**
   * A complete line, without its `\n` (a trailing `\r` is left for the parser). Returning exactly
   * `false` stops the splitter right after this line: {@link LineSplitter.push} then returns where
   * it stopped, and the caller hands the rest of the chunk back later. Any other value goes on.
   */
  line(bytes: Uint8Array): unknown;
  /**
   * Optional: a complete line of a pure-ASCII chunk, as a string (latin1-decoded, so one character
   * per byte; without its `\n`, a trailing `\r` kept). When present, such lines come here instead
   * of {@link LineSink.line}, with the same `false` convention: the chunk is decoded once, not
   * once per line, and no view is made per line.
   */
  text?(line: string): unknown;
  /** A line grew past the cap; its bytes are being discarded up to the next newline. */
  oversize(maxBytes: number): void;
}

/**
 * Byte-level line splitter.
 *
 * A line that fits in one chunk is handed on as a view of that chunk (no copy). A line that grows
 * past `maxBytes` is reported once, dropped, and skipped *while streaming*: no more than
 * `maxBytes` of one line is ever buffered, however long the line is.
 *
 * @example
 * const splitter = new LineSplitter(1024, { line: (b) => console.error(b.length), oversize() {} });
 * splitter.push(Buffer.from('{"a":1}\n{"b"'));
 * splitter.push(Buffer.from(':2}\n'));
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSink,
  ) {}

  /** Bytes of the current, unfinished line held in memory (never more than `maxBytes`). */
  get bufferedBytes(): number {
    return this.size;
  }

  /**
   * Split `chunk`. Returns how many of its bytes were consumed: all of them, unless the sink
   * asked to stop after a line (then the rest starts on a line boundary and nothing of it is held).
   */
  push(chunk: Uint8Array): number {
    const length = chunk.length;
    let start = 0;
    // A line begun in an earlier chunk (or the rest of an oversize one) ends byte-wise first.
    if (this.size > 0 || this.skipping) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline === -1) {
        this.append(chunk, 0, length, false);
        return length;
      }
      let more: unknown = true;
      this.append(chunk, 0, newline, false);
      if (this.skipping) this.skipping = false;
      else more = this.flush();
      start = newline + 1;
      if (more === false || start === length) return start;
    }
    // Most chunks are pure ASCII JSON: decode them once and split the string (a view, a check
    // and a decode per line cost more than the JSON.parse of a small message together).
    if (this.sink.text !== undefined && isAscii(start === 0 ? chunk : chunk.subarray(start)))
      return this.pushText(chunk, start);
    while (start < length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        // A tail that is only part of the chunk is copied so the line does not pin the chunk.
        this.append(chunk, start, length, start > 0);
        return length;
      }
      let more: unknown = true;
      if (newline - start > this.maxBytes) this.sink.oversize(this.maxBytes);
      else more = this.sink.line(chunk.subarray(start, newline));
      start = newline + 1;
      if (more === false) return start;
    }
    return length;
  }

  /** {@link push} for the ASCII rest of a chunk from `from` on, nothing held: split as a string. */
  private pushText(chunk: Uint8Array, from: number): number {
    const sink = this.sink as Required<LineSink>;
    const length = chunk.length;
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, length);
    // Offsets in `text` are offsets in the chunk minus `from`: one character per ASCII byte.
    const text = buffer.toString('latin1', from, length);
    const end = text.length;
    let start = 0;
    while (start < end) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) {
        this.append(chunk, from + start, length, from + start > 0);
        return length;
      }
      let more: unknown = true;
      if (newline - start > this.maxBytes) this.sink.oversize(this.maxBytes);
      else more = sink.text(text.slice(start, newline));
      start = newline + 1;
      if (more === false) return from + start;
    }
    return length;
  }

  /** The input ended: a last line without a newline still counts. */
  end(): void {
    if (this.size > 0) this.flush();
    this.skipping = false;
  }

  private append(chunk: Uint8Array, from: number, to: number, copy: boolean): void {
    if (this.skipping || to === from) return;
    const count = to - from;
    if (this.size + count > this.maxBytes) {
      this.parts = [];
      this.size = 0;
      this.skipping = true;
      this.sink.oversize(this.maxBytes);
      return;
    }
    const piece = chunk.subarray(from, to);
    // `new Uint8Array(view)` copies; `Buffer#slice` would not (it is a view, like `subarray`).
    this.parts.push(copy ? new Uint8Array(piece) : piece);
    this.size += count;
  }

  private flush(): unknown {
    const parts = this.parts;
    const line = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, this.size);
    this.parts = [];
    this.size = 0;
    return this.sink.line(line);
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
