/**
 * Top-level messages that say what failed. The engine's `ConnectionClosedError`s for a connection
 * the peer or the transport ended read "Connection closed" or "Could not send the request" (the
 * same words go to peers on the wire, so the engine keeps them short); the reason is in their
 * `cause`: the transport's error, which names the URL and `ECONNREFUSED`, or the command, exit
 * code and stderr tail of a stdio server that died. Whatever the client hands to its caller
 * carries that reason in the message too. (A call ended by a local `close()` already names itself
 * and has no cause.)
 */
import { ConnectionClosedError, NotConnectedError } from '../core/errors.js';
import { EraDetectionError } from './errors.js';

/** Longest reason appended to a message (a stdio stderr tail is bounded at 1 KiB already). */
const MAX_REASON = 2_000;

/**
 * The reason behind a wrapped failure: the message of the first error in the `cause` chain that
 * is not itself a bare "connection closed" wrapper, or undefined when there is none.
 *
 * @example
 * failureReason(new ConnectionClosedError('Connection closed', { cause: new Error('exited with code 3') })); // 'exited with code 3'
 */
export function failureReason(error: unknown): string | undefined {
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (!(cause instanceof ConnectionClosedError && cause.cause instanceof Error)) {
      const text = cause.message || cause.name;
      return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}...` : text;
    }
    cause = cause.cause;
  }
  return undefined;
}

/**
 * A `ConnectionClosedError` whose message also says why (same class, same `cause`); anything
 * else is returned as it is.
 *
 * @example
 * await connection.request('tools/list').catch((e) => { throw explainClosed(e); });
 */
export function explainClosed(error: unknown): unknown {
  if (!(error instanceof ConnectionClosedError) || error.constructor !== ConnectionClosedError) return error;
  const reason = failureReason(error);
  if (reason === undefined || error.message.includes(reason)) return error;
  const message = `${error.message}: ${reason}`;
  const explained = new ConnectionClosedError(message, { cause: error.cause });
  // Where it was raised is still the useful stack.
  if (error.stack !== undefined) explained.stack = error.stack.replace(error.message, message);
  return explained;
}

/**
 * The error of a `connect` whose connection ended under it (the server exited, closed its end,
 * or could not be started) before the handshake or the era probe was done. The
 * `ConnectionClosedError` the pending request got, or the `EraDetectionError` made of it, would
 * speak of "Connection closed" or of eras; this one says what happened, in the terms of a
 * process when the transport described one (the stdio fields `command`, `exitCode`, `signal`,
 * `stderrTail`). `cause` is what the transport reported (that exit, or the spawn error), at the
 * top of the chain, so that its fields are one step away.
 *
 * @example
 * catch (error) { if (!connection.isOpen && !connection.closedLocally) throw closedDuringConnect(error, transport.lastError); }
 */
export function closedDuringConnect(error: unknown, lastError: unknown): ConnectionClosedError {
  // The transport's own report is the most complete (a stdio exit with all of its stderr).
  const cause = processExit(lastError) ? lastError : (rootCause(error) ?? lastError);
  const exit = processExit(cause);
  let message: string;
  if (exit) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.exitCode)}`;
    const said = exit.stderrTail ? `; its stderr ended with:\n${exit.stderrTail}` : '';
    message = `The server process (${exit.command}) ${how} during connect${said}`;
  } else {
    const reason = cause instanceof Error ? cause.message || cause.name : undefined;
    message = `The connection to the server closed during connect${reason ? `: ${clip(reason)}` : ' (the server ended it)'}`;
  }
  return new ConnectionClosedError(message, { cause: cause ?? error });
}

/** The first error under the wrappers that only say "closed" or "era unknown", if there is one. */
function rootCause(error: unknown): unknown {
  let e = error;
  for (let depth = 0; depth < 5 && isWrapper(e) && e.cause instanceof Error; depth++) e = e.cause;
  return isWrapper(e) ? undefined : e;
}

function isWrapper(error: unknown): error is ConnectionClosedError | EraDetectionError {
  return error instanceof ConnectionClosedError || error instanceof EraDetectionError;
}

/** The fields a stdio transport sets on the error of a child that exited (`ChildExitFields`). */
interface ProcessExit {
  command: string;
  exitCode: number | null;
  signal: string | null;
  stderrTail: string | undefined;
}

function processExit(error: unknown): ProcessExit | undefined {
  if (!(error instanceof Error)) return undefined;
  const fields = error as Error & Partial<ProcessExit>;
  if (typeof fields.command !== 'string') return undefined;
  if (typeof fields.exitCode !== 'number' && typeof fields.signal !== 'string') return undefined;
  return fields as Error & ProcessExit;
}

function clip(text: string): string {
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}...` : text;
}

/**
 * The error of a client used before `connect`: what was asked for (`what`: "send tools/call"),
 * and what to do.
 *
 * @example
 * notConnected('send tools/list').message; // 'Cannot send tools/list: the client is not connected. Call ...'
 */
export function notConnected(what: string): NotConnectedError {
  return new NotConnectedError(
    `Cannot ${what}: the client is not connected. Call \`await client.connect(transport)\` first ` +
      '(or create a connected one with `await McpClient.connect(transport)`)',
  );
}
