/**
 * Which of the server's tools doctor calls (issue 29): the user's hints first, else guesses from
 * names and descriptions; arguments from `--args` or the least the input schema accepts.
 */

/** A tool as `tools/list` describes it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: {
    properties?: Record<string, { type?: string | string[]; enum?: unknown[] }>;
    required?: string[];
  };
}

/**
 * The tools each check may use; undefined: none found.
 *
 * @example
 * const picks = pickTools(tools, { slow: 'wait' });
 */
export interface ToolPicks {
  /** Answers promptly. */
  fast?: ListedTool | undefined;
  /** Runs for a while, or waits on the client (a tool that samples or elicits does, until answered). */
  slow?: ListedTool | undefined;
  /** Asks the client for input (sampling or elicitation). */
  asking?: ListedTool | undefined;
}

export interface ToolHints {
  fast?: string | undefined;
  slow?: string | undefined;
  sampling?: string | undefined;
  elicit?: string | undefined;
}

const text = (tool: ListedTool): string => `${tool.name} ${tool.description ?? ''}`.toLowerCase();
const needsNothing = (tool: ListedTool): boolean => (tool.inputSchema?.required ?? []).length === 0;

export function pickTools(tools: readonly ListedTool[], hints: ToolHints): ToolPicks {
  const named = (name: string | undefined) =>
    name === undefined ? undefined : tools.find((t) => t.name === name);
  const matching = (pattern: RegExp, avoid?: RegExp) =>
    tools.find((t) => pattern.test(text(t)) && !(avoid?.test(text(t)) ?? false));
  const asking =
    named(hints.sampling) ??
    named(hints.elicit) ??
    matching(/sampl|createmessage/) ??
    matching(/elicit/, /url|stream|input_required/);
  const slow = named(hints.slow) ?? matching(/\b(slow|sleep|wait|long|delay)/) ?? asking;
  const fast =
    named(hints.fast) ??
    tools.find(
      (t) =>
        /echo|simple|ping|hello|add|fast/.test(text(t)) &&
        t !== asking &&
        t !== slow &&
        !/error|fail|trigger/.test(text(t)),
    ) ??
    tools.find((t) => needsNothing(t) && t !== asking && t !== slow && !/error|fail|trigger/.test(text(t)));
  return { fast, slow, asking };
}

/** Names of a number property that says how long a tool runs, in seconds or in milliseconds. */
const SECONDS = /^(seconds?|secs?|duration|delay|wait|sleep|time)$/i;
const MILLIS = /(^ms$|millis|_ms$|Ms$)/;
/** How long doctor asks a slow tool to run, when its schema lets it say. */
const SLOW_SECONDS = 3;

/**
 * The least arguments `tool`'s schema accepts: each required property with a plain value of its
 * type. With `slow`, a number property named like a duration (`seconds`, `delay`, `ms`, ...) asks
 * for a few seconds even when optional, so a "slow" tool is slow under doctor too.
 *
 * @example
 * minimalArguments({ name: 'wait', inputSchema: { properties: { seconds: { type: 'number' } } } }, undefined, true);
 * // { seconds: 3 }
 */
export function minimalArguments(
  tool: ListedTool,
  given?: Record<string, unknown>,
  slow = false,
): Record<string, unknown> {
  if (given) return given;
  const out: Record<string, unknown> = {};
  for (const name of tool.inputSchema?.required ?? []) {
    const property = tool.inputSchema?.properties?.[name] ?? {};
    if (property.enum && property.enum.length > 0) {
      out[name] = property.enum[0];
      continue;
    }
    const type = Array.isArray(property.type) ? property.type[0] : property.type;
    out[name] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? false
          : type === 'array'
            ? []
            : type === 'object'
              ? {}
              : 'doctor';
  }
  if (slow) {
    for (const [name, property] of Object.entries(tool.inputSchema?.properties ?? {})) {
      const type = Array.isArray(property.type) ? property.type[0] : property.type;
      if (type !== 'number' && type !== 'integer') continue;
      if (MILLIS.test(name)) out[name] = SLOW_SECONDS * 1000;
      else if (SECONDS.test(name)) out[name] = SLOW_SECONDS;
    }
  }
  return out;
}
