/**
 * RFC 6570 template parsing and matching (the reverse of expansion), for {@link UriTemplate}.
 *
 * Expansion is url-template's; no maintained npm library matches without generating code from
 * strings (uri-template-lite compiles each matcher with `Function(...)`, which Cloudflare workerd
 * refuses), so matching is done here: each expression becomes a capture group of the characters
 * its operator can produce, and the captures are split back into variables. The result is a
 * candidate only: {@link UriTemplate.match} accepts it when expanding it gives the URI back, which
 * settles every ambiguity (adjacent expressions, a prefix modifier, a value that holds a separator)
 * by what the template can actually produce.
 */

/** One variable of an expression: `name`, `name*` (explode) or `name:3` (prefix). */
export interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
}

/** A template part: literal text, or an expression with its operator (`''` for none). */
export type TemplatePart =
  { readonly literal: string } | { readonly operator: Operator; readonly vars: readonly VarSpec[] };

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

const OPERATORS = new Set<string>(['+', '#', '.', '/', ';', '?', '&']);
const VARSPEC =
  /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*)(\*|:[1-9]\d{0,3})?$/;

/**
 * Splits a template into literals and expressions; throws on what RFC 6570 does not allow
 * (an unclosed or stray brace, an empty expression, a malformed variable name).
 *
 * @example
 * parseTemplate('users://{id}{?tag*}'); // [{ literal: 'users://' }, { operator: '', vars: [{ name: 'id', explode: false }] }, ...]
 */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const fail = (why: string): never => {
    throw new Error(`Invalid URI template "${template}": ${why}`);
  };
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    const close = template.indexOf('}', at);
    if (close >= 0 && (open < 0 || close < open)) fail(`"}" without "{" at ${close}`);
    if (open < 0) {
      parts.push({ literal: template.slice(at) });
      break;
    }
    if (open > at) parts.push({ literal: template.slice(at, open) });
    if (close < 0) fail(`"{" at ${open} is never closed`);
    let body = template.slice(open + 1, close);
    if (body.includes('{')) fail(`"{" inside the expression at ${open}`);
    let operator: Operator = '';
    if (OPERATORS.has(body.charAt(0))) [operator, body] = [body.charAt(0) as Operator, body.slice(1)];
    const vars = body.split(',').map((spec) => {
      const parsed = VARSPEC.exec(spec);
      if (!parsed) return fail(`bad variable "${spec}" in the expression at ${open}`);
      return { name: parsed[1] as string, explode: parsed[2] === '*' };
    });
    parts.push({ operator, vars });
    at = close + 1;
  }
  return parts;
}

const SEPARATOR: Record<Operator, string> = {
  '': ',',
  '+': ',',
  '#': ',',
  '.': '.',
  '/': '/',
  ';': ';',
  '?': '&',
  '&': '&',
};

// What an expansion can put into a URI, by operator: unreserved characters and percent-escapes,
// the separators of that operator, `=` for the named operators, and for `+`/`#` every reserved
// character (RFC 6570 §3.2.3).
const UNRESERVED = String.raw`A-Za-z0-9\-._~`;
const RESERVED = String.raw`:/?#\[\]@!$&'()*+,;=`;
const PCT = '%[0-9A-Fa-f]{2}';

// One flat class per expression, separators included: a nested `(item (sep item)*)` pattern whose
// items may contain the separator backtracks exponentially on a URI that almost matches (a client
// controls the URI). Splitting into items happens afterwards, in assign().
function valueChars(operator: Operator): string {
  if (operator === '+' || operator === '#') return `(?:[${UNRESERVED}${RESERVED}]|${PCT})`;
  const named = operator === ';' || operator === '?' || operator === '&' ? '=' : '';
  const separator = SEPARATOR[operator] === ',' ? '' : escapeRegExp(SEPARATOR[operator]);
  return `(?:[${UNRESERVED},${named}${separator}]|${PCT})`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function groupFor(operator: Operator): string {
  const chars = valueChars(operator);
  if (operator === '' || operator === '+') return `(${chars}*)`;
  // The operator character starts a non-empty expansion.
  return `((?:${escapeRegExp(operator)}${chars}*)?)`;
}

/**
 * The regular expression (no `eval`: a `RegExp` is data) that finds a candidate match of `parts`.
 *
 * @example
 * matcherFor(parseTemplate('a://{id}')).exec('a://7')?.[1]; // '7'
 */
export function matcherFor(parts: readonly TemplatePart[]): RegExp {
  const source = parts
    .map((part) => ('literal' in part ? escapeRegExp(part.literal) : groupFor(part.operator)))
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * The longest URI worth matching against `parts`. Where an expression's characters can also start
 * what follows it (`{a}{b}`, `{+a}/{+b}`, `{name}.json`), a failed match tries every split, so its
 * cost grows as the URI's length to the power of (1 + such boundaries). The URI is the client's:
 * the limit keeps that cost near 10^7 steps at most, and never above `cap`.
 *
 * @example
 * maxMatchLength(parseTemplate('x://{a}{b}{c}{d}z'), 4096); // 25
 */
export function maxMatchLength(parts: readonly TemplatePart[], cap: number): number {
  let degree = 1;
  parts.forEach((part, index) => {
    if ('literal' in part) return;
    const next = parts[index + 1];
    if (next === undefined) return;
    const first = 'literal' in next ? next.literal.charAt(0) : next.operator || 'a';
    if (new RegExp(`^${valueChars(part.operator)}`).test(first) || first === '%') degree++;
  });
  return Math.min(cap, Math.floor(Math.pow(1e7, 1 / degree)));
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined; // a malformed escape: no match
  }
}

type Variables = { [name: string]: string | string[] };

/** Splits one expression's captured text into its variables; false when it cannot. */
function assign(operator: Operator, vars: readonly VarSpec[], text: string, into: Variables): boolean {
  if (text === '') return true; // every variable undefined or empty: nothing to bind
  const body = operator === '' || operator === '+' ? text : text.slice(1);
  const items = body.split(SEPARATOR[operator]);
  const set = (name: string, value: string | string[]): void => {
    const previous = into[name];
    into[name] = previous === undefined ? value : [previous, value].flat();
  };
  if (operator === ';' || operator === '?' || operator === '&') {
    for (const item of items) {
      const eq = item.indexOf('=');
      const key = decode(eq < 0 ? item : item.slice(0, eq));
      const value = decode(eq < 0 ? '' : item.slice(eq + 1));
      if (key === undefined || value === undefined || !vars.some((v) => v.name === key)) return false;
      set(key, value);
    }
    return true;
  }
  // Positional operators: one variable takes the whole text (a list value keeps its separators,
  // an exploded one becomes a list); several take an item each, the last one the rest.
  const decoded = items.map(decode);
  if (decoded.some((item) => item === undefined)) return false;
  const values = decoded as string[];
  vars.forEach((spec, index) => {
    const last = index === vars.length - 1;
    const mine = last ? values.slice(index) : values.slice(index, index + 1);
    if (mine.length === 0) return;
    if (spec.explode && mine.length > 1) set(spec.name, mine);
    else set(spec.name, mine.join(last && !spec.explode ? SEPARATOR[operator] : ''));
  });
  return true;
}

/**
 * Candidate variables for `uri`, or undefined when it does not have the template's shape. The
 * caller must check that expanding them gives `uri` back.
 *
 * @example
 * candidateMatch(parseTemplate('a://{id}'), matcherFor(parseTemplate('a://{id}')), 'a://7'); // { id: '7' }
 */
export function candidateMatch(
  parts: readonly TemplatePart[],
  matcher: RegExp,
  uri: string,
): Variables | undefined {
  const found = matcher.exec(uri);
  if (!found) return undefined;
  const variables: Variables = {};
  let group = 1;
  for (const part of parts) {
    if ('literal' in part) continue;
    if (!assign(part.operator, part.vars, found[group++] ?? '', variables)) return undefined;
  }
  return variables;
}
