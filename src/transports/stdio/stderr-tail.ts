/**
 * The lines of a dead child's stderr worth putting in an error message: its last lines, and the
 * line that names the error when that one is further up. A Node server that fails to start
 * prints the error line (`SyntaxError: ...`) and then a stack and its version: the last lines
 * alone are `at ...` frames and `Node.js v20.x`, which say nothing.
 */

/**
 * Lines of the end of a dead child's stderr kept for the error message (`stderrTail`), besides
 * the error line found above them.
 *
 * @example
 * (error.cause as ChildExitFields).stderrTail?.split('\n').length; // <= STDERR_TAIL_LINES + 2
 */
export const STDERR_TAIL_LINES = 5;
/**
 * Bytes (UTF-8) of a dead child's stderr kept for the error message (`stderrTail`).
 *
 * @example
 * new TextEncoder().encode(tail).length; // <= STDERR_TAIL_BYTES
 */
export const STDERR_TAIL_BYTES = 1024;
/** Raw text kept while collecting: enough for the bounds above, and for a stack below the error line. */
const RING_CHARS = 4 * STDERR_TAIL_BYTES;
/** The error line may take this much of {@link STDERR_TAIL_BYTES}; the end gets the rest. */
const ERROR_LINE_BYTES = 300;
/** Stands for the lines left out between the error line and the end. */
const SKIPPED = '...';

/**
 * A line that names a failure, the way runtimes print one: `SyntaxError: ...`, `Error: ...`,
 * `Error [ERR_MODULE_NOT_FOUND]: ...`, `ModuleNotFoundError: ...` (Python),
 * `java.lang.IllegalStateException: ...`, `Exception in thread ...`, `panic: ...` (Go),
 * `thread 'main' panicked at ...` (Rust). Stack frames are indented, so they never match.
 *
 * @example
 * ERROR_LINE.test("SyntaxError: Unexpected identifier 'is'"); // true
 * ERROR_LINE.test('    at ModuleJob._link (node:internal/modules/esm/module_job:148:19)'); // false
 */
export const ERROR_LINE = /^(?:[\w$.]*(?:Error|Exception)\b|Uncaught\b|panic: |thread '.*' panicked)/;

/**
 * The end of a child's stderr, bounded in memory whatever the child writes.
 *
 * @example
 * const tail = new StderrTail();
 * child.stderr.on('data', (chunk) => tail.push(chunk));
 * tail.text(); // the error line (if further up), then the last 5 lines; at most 1 KiB
 */
export class StderrTail {
  private ring = '';
  /** The ring lost its start: its first line may be the end of a longer one. */
  private cut = false;
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    this.ring += text;
    if (this.ring.length > RING_CHARS) {
      this.ring = this.ring.slice(-RING_CHARS);
      this.cut = true;
    }
  }

  /**
   * The last {@link STDERR_TAIL_LINES} non-empty lines; when a line above them names an error
   * ({@link ERROR_LINE}), the first such line comes first (cut to 300 bytes), then `...` if lines
   * were left out between. At most {@link STDERR_TAIL_BYTES} bytes: the end is cut from the front.
   */
  text(): string {
    const lines = this.ring
      .split(/\r?\n/)
      .map((line) => line.trimEnd())
      .filter((line) => line !== '');
    const endStart = Math.max(0, lines.length - STDERR_TAIL_LINES);
    const end = lines.slice(endStart).join('\n');
    // A partial first line is only ever kept as part of the end, where the byte cut applies anyway.
    const at = lines.findIndex(
      (line, index) => index < endStart && (index > 0 || !this.cut) && ERROR_LINE.test(line),
    );
    if (at < 0) return lastBytes(end, STDERR_TAIL_BYTES);
    const head = firstBytes(lines[at]!, ERROR_LINE_BYTES) + (at < endStart - 1 ? `\n${SKIPPED}` : '') + '\n';
    return head + lastBytes(end, STDERR_TAIL_BYTES - byteLength(head));
  }
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The last `max` bytes of `text`, cut at a character boundary. */
function lastBytes(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  // A byte cut may leave a partial character in front: drop it.
  return new TextDecoder().decode(bytes.subarray(bytes.length - max)).replace(/^\uFFFD+/, '');
}

/** The first `max` bytes of `text` (ending in `...` when cut), at a character boundary. */
function firstBytes(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  const kept = new TextDecoder().decode(bytes.subarray(0, max - SKIPPED.length)).replace(/\uFFFD+$/, '');
  return kept + SKIPPED;
}
