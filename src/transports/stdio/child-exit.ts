/**
 * What a client says about a stdio server that died: its command line (shortened), its exit code
 * or signal, and the lines of its stderr that matter (see stderr-tail.ts): stderr still flows
 * where it always did; only a small ring of its end is kept, for the message.
 */
import type { Readable } from 'node:stream';

/** Longest command line shown in a message. */
const MAX_COMMAND_CHARS = 120;

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
  /**
   * The stderr lines that matter (at most 1 KiB): the last 5, preceded by the first line before
   * them that names an error (`SyntaxError: ...`), if any, and a `...` line for what lies between.
   * Undefined with `stderr: 'ignore'`.
   */
  stderrTail: string | undefined;
}
