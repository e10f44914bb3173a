/**
 * What a client says about a stdio server that died: its command line (shortened), its exit code
 * or signal, and the last lines it wrote to stderr. The stderr tail is a small ring: stderr still
 * flows where it always did; only its end is kept, for the message.
 */
import type { Readable } from 'node:stream';

/**
 * Lines of a dead child's stderr kept for the error message (`stderrTail`).
 *
 * @example
 * (error.cause as ChildExitFields).stderrTail?.split('\n').length; // <= STDERR_TAIL_LINES
 */
export const STDERR_TAIL_LINES = 5;
/**
 * Bytes (UTF-8) of a dead child's stderr kept for the error message (`stderrTail`).
 *
 * @example
 * new TextEncoder().encode(tail).length; // <= STDERR_TAIL_BYTES
 */
export const STDERR_TAIL_BYTES = 1024;
/** Longest command line shown in a message. */
const MAX_COMMAND_CHARS = 120;
/** Raw text kept while collecting: enough for the bounds above, however the child writes. */
const RING_CHARS = 4 * STDERR_TAIL_BYTES;

/**
 * The end of a child's stderr, bounded in memory whatever the child writes.
 *
 * @example
 * const tail = new StderrTail();
 * child.stderr.on('data', (chunk) => tail.push(chunk));
 * tail.text(); // at most 5 lines, at most 1 KiB
 */
export class StderrTail {
  private ring = '';
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    this.ring = (this.ring + text).slice(-RING_CHARS);
  }

  /** The last {@link STDERR_TAIL_LINES} non-empty lines, cut to their last {@link STDERR_TAIL_BYTES} bytes. */
  text(): string {
    const lines = this.ring
      .split(/\r?\n/)
      .map((line) => line.trimEnd())
      .filter((line) => line !== '');
    // The ring's first line may be the end of a longer one: the end is what the cut below keeps anyway.
    const kept = lines.slice(-STDERR_TAIL_LINES).join('\n');
    const bytes = new TextEncoder().encode(kept);
    if (bytes.length <= STDERR_TAIL_BYTES) return kept;
    // Cut at a character boundary: drop the partial character a byte cut may leave in front.
    return new TextDecoder().decode(bytes.subarray(bytes.length - STDERR_TAIL_BYTES)).replace(/^\uFFFD+/, '');
  }
}

/**
 * Copy a child's stderr to this process's stderr (`stderr: 'inherit'`, which is relayed so that
 * its tail can be kept). Not `pipe()`: that adds five listeners to `process.stderr` per child,
 * and a host with a dozen servers would trip `MaxListenersExceededWarning`. A full destination
 * pauses the child's stream until it drains, as `pipe()` would.
 *
 * @example
 * relayToStderr(child.stderr);
 */
export function relayToStderr(source: Readable): void {
  source.on('data', (chunk: Uint8Array) => {
    if (process.stderr.write(chunk)) return;
    source.pause();
    process.stderr.once('drain', () => source.resume());
  });
}

/**
 * The command line for a message: arguments with spaces quoted, cut to 120 characters.
 *
 * @example
 * shortCommand('node', ['server.js', '--port', '3000']); // 'node server.js --port 3000'
 */
export function shortCommand(command: string, args: readonly string[]): string {
  const line = [command, ...args].map((arg) => (/[\s"']/.test(arg) ? JSON.stringify(arg) : arg)).join(' ');
  return line.length > MAX_COMMAND_CHARS ? `${line.slice(0, MAX_COMMAND_CHARS - 3)}...` : line;
}

/**
 * The error of a child that exited (the transport's `lastError`, so the `cause` of the requests
 * that failed): an `Error` with `exitCode`, `signal`, `command` and `stderrTail` fields.
 *
 * @example
 * childExitError('node server.js', 3, null, 'boom').message;
 * // 'The server process (node server.js) exited with code 3; its stderr ended with:\nboom'
 */
export function childExitError(
  command: string,
  exitCode: number | null,
  signal: NodeJS.Signals | null,
  stderrTail: string | undefined,
): Error & ChildExitFields {
  const how = signal ? `was killed by ${signal}` : `exited with code ${String(exitCode)}`;
  const said = stderrTail ? `; its stderr ended with:\n${stderrTail}` : '';
  return Object.assign(new Error(`The server process (${command}) ${how}${said}`), {
    exitCode,
    signal,
    command,
    stderrTail,
  });
}

/**
 * The fields of a {@link childExitError}.
 *
 * @example
 * if (typeof (error.cause as ChildExitFields).exitCode === 'number') console.error(error.cause.stderrTail);
 */
export interface ChildExitFields {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The command line, shortened. */
  command: string;
  /** The last stderr lines (at most 5, at most 1 KiB); undefined with `stderr: 'ignore'`. */
  stderrTail: string | undefined;
}
