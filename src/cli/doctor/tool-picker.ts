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

/** The least arguments `tool`'s schema accepts: each required property with a plain value of its type. */
export function minimalArguments(tool: ListedTool, given?: Record<string, unknown>): Record<string, unknown> {
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
  return out;
}
