/**
 * RFC 6570 URI templates: expansion by url-template, matching by ./uri-template-parse.ts. Neither
 * generates code from strings, so templates work on Cloudflare workerd (which refuses `eval` and
 * `new Function`).
 *
 * - A match must round-trip: expanding the variables gives the URI back (up to percent-encoding
 *   case). The candidate match alone is lenient (adjacent expressions, prefixes, lists).
 * - Trailing query expressions (`{?a,b}`, `{&c}`) are matched by name, in any order, each
 *   optional, as clients write them, not in template order as a strict reverse expansion would.
 */
import { parseTemplate as parseForExpansion, type Template } from 'url-template';
import {
  candidateMatch,
  matcherFor,
  maxMatchLength,
  parseTemplate,
  type TemplatePart,
} from './uri-template-parse.js';

/**
 * The longest URI {@link UriTemplate.match} considers (characters); longer ones match no template.
 *
 * @example
 * new UriTemplate('a://{id}').match('a://' + 'x'.repeat(MAX_MATCH_URI_LENGTH)); // undefined
 */
export const MAX_MATCH_URI_LENGTH = 4096;

/**
 * Variables a URI matched: a string per variable, or a list for exploded/list variables.
 *
 * @example
 * const vars: TemplateVariables | undefined = new UriTemplate('users://{id}{?tag*}').match('users://7?tag=a&tag=b');
 * // { id: '7', tag: ['a', 'b'] }
 */
export type TemplateVariables = { [name: string]: string | string[] };

const TRAILING_QUERY = /(\{[?&][^}]*\})+$/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Canonical percent-encoding: upper-case hex, unreserved characters decoded. */
function normalize(uri: string): string {
  return uri.replace(/%([0-9a-fA-F]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
}

function namesOf(expressions: string): string[] {
  return [...expressions.matchAll(/\{[+#./;?&]?([^}]*)\}/g)].flatMap((m) =>
    (m[1] ?? '').split(',').map((name) => name.replace(/(\*|:\d+)$/, '')),
  );
}

/**
 * A compiled URI template.
 *
 * @example
 * const t = new UriTemplate('test://template/{id}/data');
 * t.match('test://template/123/data'); // { id: '123' }
 * t.expand({ id: '7' }); // 'test://template/7/data'
 */
export class UriTemplate {
  private readonly full: Template;
  private readonly path: Template;
  private readonly pathParts: TemplatePart[];
  private readonly pathMatcher: RegExp;
  private readonly maxLength: number;
  private readonly queryNames: string[];
  /** Variable names, in order of appearance. */
  readonly variables: string[];

  /** Throws an `Error` naming the template when it is not valid RFC 6570. */
  constructor(readonly template: string) {
    parseTemplate(template); // validates the whole template, query expressions included
    this.full = parseForExpansion(template);
    const query = TRAILING_QUERY.exec(template)?.[0] ?? '';
    const pathTemplate = query ? template.slice(0, -query.length) : template;
    this.path = parseForExpansion(pathTemplate);
    this.pathParts = parseTemplate(pathTemplate);
    this.pathMatcher = matcherFor(this.pathParts);
    this.maxLength = maxMatchLength(this.pathParts, MAX_MATCH_URI_LENGTH);
    this.queryNames = namesOf(query);
    this.variables = namesOf(template);
  }

  /**
   * The variables if `uri` matches the template, else undefined. A URI longer than
   * {@link MAX_MATCH_URI_LENGTH} never matches, nor one longer than the template's own limit
   * (lower where adjacent expressions make a failed match cost a power of the URI's length; see
   * maxMatchLength): the URI is the client's.
   */
  match(uri: string): TemplateVariables | undefined {
    if (uri.length > MAX_MATCH_URI_LENGTH) return undefined;
    let pathPart = uri;
    let search = '';
    if (this.queryNames.length > 0) {
      const at = uri.indexOf('?');
      if (at >= 0) [pathPart, search] = [uri.slice(0, at), uri.slice(at + 1)];
    }
    if (pathPart.length > this.maxLength) return undefined;
    const variables = candidateMatch(this.pathParts, this.pathMatcher, pathPart);
    if (!variables) return undefined;
    if (normalize(this.path.expand(variables)) !== normalize(pathPart)) return undefined;
    for (const [name, value] of new URLSearchParams(search)) {
      if (!this.queryNames.includes(name)) return undefined;
      const previous = variables[name];
      variables[name] = previous === undefined ? value : [previous, value].flat();
    }
    return variables;
  }

  expand(variables: { [name: string]: string | number | string[] }): string {
    return this.full.expand(variables);
  }
}
