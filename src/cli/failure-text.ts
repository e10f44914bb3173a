/**
 * The message of a failed command, without saying the server's stderr twice.
 *
 * A stdio server that dies has its stderr relayed as it comes, and the client's error repeats its
 * last lines (so that a program using the library sees them). Printed as they were, the same lines
 * came two or three times. This compares lines instead of relying on the client's wording: lines
 * of the message that were already shown are left out, and the tail of stderr is added only when
 * it was not shown and the message does not carry it.
 */
import { ConnectionClosedError } from '../core/errors.js';

/** What the user has seen of the server's stderr. */
export interface StderrSeen {
  /** The lines already printed (relayed live); empty with `--quiet`. */
  shown: readonly string[];
  /** The last lines the server wrote, printed or not. */
  tail: readonly string[];
}

/**
 * `keel: <prefix>: <error>` plus what the user has not seen of the server's stderr. The text is not
 * escaped here (the caller does, once, for the whole message).
 *
 * @example
 * failureText('cannot connect to `node s.js`', new Error('exited with code 3; its stderr ended with:\nboom'), { shown: ['boom'], tail: ['boom'] });
 * // 'keel: cannot connect to `node s.js`: exited with code 3; its stderr ended with: (see above)'
 */
export function failureText(prefix: string, error: unknown, stderr: StderrSeen): string {
  const shown = new Set(stderr.shown.map((line) => line.trim()).filter((line) => line !== ''));
  const [first = '', ...rest] = errorText(error).split('\n');
  const lines = [`keel: ${prefix}: ${first}`];
  const kept = [true, ...rest.map((line) => !shown.has(line.trim()))];
  const all = [first, ...rest];
  for (let i = 1; i < all.length; i++) if (kept[i]) lines.push(`    ${all[i]}`);
  // "…its stderr ended with:" followed only by lines the user saw: point at them.
  let at = 0;
  for (let i = 0; i < all.length; i++) {
    if (!kept[i]) continue;
    if (all[i]!.trimEnd().endsWith(':') && i + 1 < all.length && !kept[i + 1]) lines[at] += ' (see above)';
    at++;
  }
  const said = new Set(all.map((line) => line.trim()));
  const unseen = stderr.tail.filter((line) => !shown.has(line.trim()) && !said.has(line.trim()));
  if (unseen.some((line) => line.trim() !== '')) {
    lines.push('  last stderr lines:', ...unseen.map((line) => `    ${line}`));
  }
  return lines.join('\n');
}

/**
 * An error's message, plus the first reason in its `cause` chain that the message does not already
 * say (a bare *connection closed* wrapper is looked through).
 *
 * @example
 * errorText(new Error('cannot list', { cause: new Error('ECONNREFUSED') })); // 'cannot list (ECONNREFUSED)'
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const text = error.message || error.name;
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++, cause = cause.cause) {
    const bareWrapper = cause instanceof ConnectionClosedError && cause.cause instanceof Error;
    if (bareWrapper || cause.message === '' || text.includes(cause.message) || tailSaid(cause, text))
      continue;
    const [head = '', ...tail] = text.split('\n');
    // On the first line: the end of a multi-line message is often the server's stderr.
    return [`${head} (${cause.message})`, ...tail].join('\n');
  }
  return text;
}

/**
 * A process exit (the stdio transport's `stderrTail` field) whose stderr lines the message already
 * carries: the client's "exited during connect" error says the same as its cause, in other words.
 */
function tailSaid(cause: Error, text: string): boolean {
  const tail = (cause as { stderrTail?: unknown }).stderrTail;
  return typeof tail === 'string' && tail !== '' && text.includes(tail);
}
