/**
 * Tool names against the spec's rules (SEP-986, "Tool Names" in server/tools of 2025-11-25 and
 * 2026-07-28). Every rule there is a SHOULD: 1 to 128 characters, only ASCII letters, digits,
 * `_`, `-` and `.`, unique within a server, case-sensitive. Keel warns on those (once per name) and
 * throws only for names that cannot work at all: not a string, empty, not well-formed Unicode (a
 * lone surrogate cannot be sent as UTF-8, so no client could call it back), or taken (the
 * registry refuses a duplicate).
 */

/** The spec's recommended longest name, in characters. */
const MAX_LENGTH = 128;
/** The characters the spec recommends. */
const ALLOWED = /^[A-Za-z0-9_.-]*$/;
/** A UTF-16 surrogate not part of a pair (with the `u` flag a pair is one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * A tool name that breaks a SHOULD of the spec's tool-name rules: registered anyway, reported to
 * `McpServerOptions.onToolNameWarning`.
 *
 * @example
 * new McpServer(info, { onToolNameWarning: (w: ToolNameWarning) => log.warn(w.message) });
 */
export interface ToolNameWarning {
  readonly name: string;
  /** What is wrong, one entry per rule broken. */
  readonly problems: readonly string[];
  /** One line for a log: the name, the problems, where the rules are. */
  readonly message: string;
}

/**
 * Default of `onToolNameWarning`: one `console.warn` line per name.
 *
 * @example
 * new McpServer(info, { onToolNameWarning: warnToolNameToConsole });
 */
export function warnToolNameToConsole(warning: ToolNameWarning): void {
  console.warn(warning.message);
}

function describeChars(name: string): string {
  const bad = [...new Set([...name].filter((char) => !/^[A-Za-z0-9_.-]$/.test(char)))];
  const shown = bad
    .slice(0, 5)
    .map((char) => (char === ' ' ? 'space' : char === ',' ? 'comma' : JSON.stringify(char)));
  return `has characters outside A-Z a-z 0-9 _ - . (${shown.join(', ')}${bad.length > 5 ? ', ...' : ''})`;
}

/**
 * @internal Check `name` at registration: throws an Error for a name that cannot work (see the
 * file comment), returns the warning for one that breaks a SHOULD, undefined for a good one.
 *
 * @example
 * checkToolName('get_user'); // undefined
 * checkToolName('get user')?.problems; // ['has characters outside A-Z a-z 0-9 _ - . (space)']
 */
export function checkToolName(name: unknown): ToolNameWarning | undefined {
  if (typeof name !== 'string' || name === '') throw new Error('A tool needs a non-empty name');
  if (LONE_SURROGATE.test(name))
    throw new Error(
      `Tool name ${JSON.stringify(name)} is not well-formed Unicode (a lone surrogate): it cannot be sent as UTF-8, so no client could call it`,
    );
  const problems: string[] = [];
  const length = [...name].length;
  if (length > MAX_LENGTH) problems.push(`is ${length} characters long (at most ${MAX_LENGTH})`);
  if (!ALLOWED.test(name)) problems.push(describeChars(name));
  if (problems.length === 0) return undefined;
  const shown = name.length > 60 ? `${JSON.stringify(name.slice(0, 60))}...` : JSON.stringify(name);
  return {
    name,
    problems,
    message: `Tool name ${shown} ${problems.join(' and ')}; the MCP spec says tool names SHOULD be 1-128 of A-Z a-z 0-9 _ - . (SEP-986). Registered anyway.`,
  };
}
