/**
 * Top-level messages that say what failed. The engine's `ConnectionClosedError`s read "Connection
 * closed" or "Could not send the request" (the same words go to peers on the wire, so the engine
 * keeps them short); the reason is in their `cause`: the transport's error, which names the URL
 * and `ECONNREFUSED`, or the command, exit code and stderr tail of a stdio server that died.
 * Whatever the client hands to its caller carries that reason in the message too.
 */
import { ConnectionClosedError } from '../core/errors.js';

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
