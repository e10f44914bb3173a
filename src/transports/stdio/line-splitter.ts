/**
 * Splits a byte stream into newline-delimited lines with a hard cap on how much of one line is
 * ever held in memory.
 */

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
    while (start < length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        // A tail that is only part of the chunk is copied so the line does not pin the chunk.
        this.append(chunk, start, length, start > 0);
        return length;
      }
      let more: unknown = true;
      if (this.skipping) {
        this.skipping = false;
      } else if (this.size === 0) {
        if (newline - start > this.maxBytes) this.sink.oversize(this.maxBytes);
        else more = this.sink.line(chunk.subarray(start, newline));
      } else {
        this.append(chunk, start, newline, false);
        if (this.skipping) this.skipping = false;
        else more = this.flush();
      }
      start = newline + 1;
      if (more === false) return start;
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
    this.parts.push(copy ? piece.slice() : piece);
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
