/**
 * RFC 6570 URI templates: parsing, expansion and a regex matcher — the engine under
 * {@link UriTemplate}. It behaves as uri-template-lite (which Keel used before) does for every
 * well-formed template, so matching stays what it was, but it is one small ES module: the
 * CommonJS package cost ~4 ms of every server's start-up, and built its matcher with `Function`.
 *
 * Encoding follows that library: simple, label, path, parameter and query expressions encode like
 * `encodeURIComponent` plus `!'()`; reserved (`+`) and fragment (`#`) expressions like `encodeURI`.
 */

/** One variable of an expression: `name`, `name*` (explode) or `name:3` (prefix). */
interface VarSpec {
  name: string;
  explode: boolean;
  prefix: number | undefined;
}

interface Expression {
  operator: string;
  /** Joins the values of the expression's variables (and exploded items). */
  separator: string;
  /** `name=value` pairs (`;`, `?`, `&`). */
  named: boolean;
  vars: VarSpec[];
}

type Part = string | Expression;

/** A value a variable can take: a string (or number), a list, or an associative array. */
export type TemplateValue =
  string | number | readonly unknown[] | { [key: string]: unknown } | null | undefined;

/** What a match yields: each variable's text (a list where the URI held several items). */
export type MatchedVariables = { [name: string]: string | string[] };

// `{op var,var*,var:3}`; anything else in braces stays literal text.
const EXPRESSION = /\{([#&+./;?]?)((?:[-\w%.]+(?:\*|:\d+)?(?:,|(?=\})))+)\}/g;
const VARSPEC = /^([^*:]*)(\*|:(\d+))?$/;

function separatorOf(operator: string): string {
  if (operator === '' || operator === '+' || operator === '#') return ',';
  return operator === '?' ? '&' : operator;
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const found of template.matchAll(EXPRESSION)) {
    if (found.index > last) parts.push(template.slice(last, found.index));
    const operator = found[1] ?? '';
    const separator = separatorOf(operator);
    const vars = (found[2] ?? '').split(',').map((text): VarSpec => {
      const [, name = '', modifier, digits] = VARSPEC.exec(text) ?? [];
      return { name, explode: modifier === '*', prefix: digits === undefined ? undefined : Number(digits) };
    });
    parts.push({ operator, separator, named: separator === ';' || separator === '&', vars });
    last = found.index + found[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

const percent = (char: string): string => `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
const encodeUnreserved = (text: unknown): string =>
  encodeURIComponent(String(text)).replace(/[!'()]/g, percent);
const encodeReserved = (text: unknown): string => encodeURI(String(text));

/** The encoded items, joined; undefined when there are none. */
function joinItems<T>(items: readonly T[], encode: (item: T) => string, glue: string): string | undefined {
  return items.length > 0 ? items.map(encode).join(glue) : undefined;
}

/** Per-expression state: an exploded map drops the `name=` form for the rest of the expression. */
interface ExpandState {
  named: boolean;
}

function expandVar(
  expression: Expression,
  state: ExpandState,
  spec: VarSpec,
  value: TemplateValue,
  encode: (item: unknown) => string,
): string | undefined {
  if (value === null || value === undefined) return undefined;
  const { separator } = expression;
  const modified = spec.explode || spec.prefix !== undefined;
  let text: string | undefined;
  if (Array.isArray(value)) {
    const glue = modified ? (state.named ? `${separator}${spec.name}=` : separator) : ',';
    text = joinItems(value, encode, glue);
  } else if (typeof value === 'object') {
    const map = value as { [key: string]: unknown };
    const glue = modified && (state.named || separator === '/') ? separator : ',';
    text = joinItems(
      Object.keys(map),
      (key) => `${encode(key)}${modified ? '=' : ','}${encode(map[key])}`,
      glue,
    );
    if (modified) state.named = false;
  } else {
    const scalar = String(value);
    text = encode(spec.prefix ? scalar.slice(0, spec.prefix) : scalar);
    return withName(state.named, separator, spec.name, text);
  }
  // An empty list or map (or one whose items all vanished) counts as undefined.
  if (!text) return undefined;
  return withName(state.named, separator, spec.name, text);
}

function withName(named: boolean, separator: string, name: string, text: string): string {
  if (!named) return text;
  return text || separator === '&' ? `${name}=${text}` : name;
}

function expandExpression(expression: Expression, variables: { [name: string]: TemplateValue }): string {
  const { operator } = expression;
  const encode = operator === '+' || operator === '#' ? encodeReserved : encodeUnreserved;
  const state: ExpandState = { named: expression.named };
  const texts: string[] = [];
  for (const spec of expression.vars) {
    const text = expandVar(expression, state, spec, variables[spec.name], encode);
    if (text !== undefined) texts.push(text);
  }
  if (texts.length === 0) return '';
  const joined = texts.join(expression.separator);
  return operator === '+' ? joined : operator + joined;
}

const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface Capture {
  group: number;
  name: string;
  explode: boolean;
  /** What separates several items inside one captured value. */
  split: string;
}

/** One regular expression for the whole template, plus where each variable's value is captured. */
function matcherOf(parts: Part[]): { regExp: RegExp; captures: Capture[] } {
  const captures: Capture[] = [];
  // A variable seen before with a prefix (`{id:2}…{id}`): later occurrences start with that text.
  const prefixGroup = new Map<string, number>();
  let source = '^';
  for (const part of parts) {
    if (typeof part === 'string') {
      for (const char of part) source += escapeRegExp(char);
      continue;
    }
    const { operator, separator, named } = part;
    part.vars.forEach((spec, index) => {
      const group = captures.length + 1;
      let value: string;
      if (spec.prefix !== undefined) {
        value = `((?:%..|.){1,${spec.prefix}})`;
        prefixGroup.set(spec.name, group);
      } else {
        const earlier = prefixGroup.get(spec.name);
        value = earlier === undefined ? '(.*?)' : `(\\${earlier}.*?)`;
      }
      const lead = index === 0 ? (operator === '+' ? '' : operator) : separator;
      const piece = escapeRegExp(lead) + (named ? `${escapeRegExp(spec.name)}(?:=${value})?` : value);
      source += spec.explode ? `(?:${piece})?` : piece;
      const split = spec.prefix === undefined ? ',' : named ? `${separator}${spec.name}=` : separator;
      captures.push({ group, name: spec.name, explode: spec.explode, split });
    });
  }
  return { regExp: new RegExp(`${source}$`), captures };
}

/**
 * A parsed template: `expand` fills it in, `match` recovers the variables from a URI (each value
 * percent-decoded; a value holding several items becomes a list), or null.
 *
 * @example
 * const t = compileUriTemplate('users://{id}/posts{/page}');
 * t.expand({ id: 'a b', page: 2 }); // 'users://a%20b/posts/2'
 * t.match('users://7/posts/2'); // { id: '7', page: '2' }
 */
export function compileUriTemplate(template: string): {
  expand(variables: { [name: string]: TemplateValue }): string;
  match(uri: string): MatchedVariables | null;
} {
  const parts = parse(template);
  const { regExp, captures } = matcherOf(parts);
  return {
    expand(variables) {
      let out = '';
      for (const part of parts) out += typeof part === 'string' ? part : expandExpression(part, variables);
      return out;
    },
    match(uri) {
      const found = regExp.exec(uri);
      if (!found) return null;
      const variables: MatchedVariables = {};
      for (const { group, name, explode, split } of captures) {
        const items = (found[group] ?? '').split(split).map(decode);
        variables[name] = explode ? items : items.length > 1 ? items : (items[0] as string);
      }
      return variables;
    },
  };
}
