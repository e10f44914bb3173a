/**
 * `<server>`: an `http(s)://` URL given as the first argument, or a command after `--`.
 */
import { UsageError } from './usage.js';

/**
 * @example
 * const target: ServerTarget = { kind: 'stdio', command: 'node', args: ['server.js'] };
 */
export type ServerTarget = { kind: 'http'; url: URL } | { kind: 'stdio'; command: string; args: string[] };

/**
 * Split a command line at the first `--`: what follows is the server command.
 *
 * @example
 * splitAtDashDash(['call', 'echo', '--', 'node', 's.js']); // { before: ['call', 'echo'], command: ['node', 's.js'] }
 */
export function splitAtDashDash(argv: readonly string[]): {
  before: string[];
  command: string[] | undefined;
} {
  const at = argv.indexOf('--');
  if (at < 0) return { before: [...argv], command: undefined };
  return { before: argv.slice(0, at), command: argv.slice(at + 1) };
}

/**
 * The server and the remaining operands: with a command after `--`, every operand is the
 * command's own; otherwise the first operand must be an http(s) URL.
 *
 * @example
 * resolveTarget(['https://h/mcp', 'echo'], undefined); // { target: { kind: 'http', url }, rest: ['echo'] }
 */
export function resolveTarget(
  operands: readonly string[],
  command: readonly string[] | undefined,
): { target: ServerTarget; rest: string[] } {
  if (command !== undefined) {
    if (command.length === 0 || command[0] === '') throw new UsageError('no server command after --');
    return { target: { kind: 'stdio', command: command[0]!, args: command.slice(1) }, rest: [...operands] };
  }
  const first = operands[0];
  if (first === undefined) throw new UsageError('no server: give an http(s):// URL, or a command after --');
  let url: URL | undefined;
  try {
    url = new URL(first);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`${JSON.stringify(first)} is not an http(s):// URL (put a server command after --)`);
  }
  return { target: { kind: 'http', url }, rest: operands.slice(1) };
}

/**
 * How errors name the server: the URL, or the command line.
 *
 * @example
 * describeTarget({ kind: 'stdio', command: 'node', args: ['s.js'] }); // '`node s.js`'
 */
export function describeTarget(target: ServerTarget): string {
  return target.kind === 'http' ? target.url.href : `\`${[target.command, ...target.args].join(' ')}\``;
}

/**
 * `--header 'K: V'` values as a header record.
 *
 * @example
 * parseHeaders(['X-Api-Key: 123']); // { 'X-Api-Key': '123' }
 */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    const name = value.slice(0, colon).trim();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header ${JSON.stringify(value)}: expected 'Name: value'`);
    }
    headers[name] = value.slice(colon + 1).trim();
  }
  return headers;
}
