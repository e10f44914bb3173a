/**
 * RFC 6570 URI templates: expansion and matching via uri-template-lite, with two fixes on top of
 * its matcher.
 *
 * - A match must round-trip: expanding the variables gives the URI back (up to percent-encoding
 *   case). The library alone is lenient — `{id}` would swallow `12/3` although a simple expansion
 *   never produces a `/`.
 * - Trailing query expressions (`{?a,b}`, `{&c}`) are matched by name, in any order, each
 *   optional, as clients write them. The library wants every name present, in template order.
 */
import UriTemplateLite from 'uri-template-lite';

/**
 * Variables a URI matched: a string per variable, or a list for exploded/list variables.
 *
 * @example
 * const vars: TemplateVariables | undefined = new UriTemplate('users://{id}{?tag*}').match('users://7?tag=a&tag=b');
 * // { id: '7', tag: ['a', 'b'] }
 */
export type TemplateVariables = { [name: string]: string | string[] };

type Compiled = { match(uri: string): TemplateVariables | null; expand(v: object): string };

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
  private readonly full: Compiled;
  private readonly path: Compiled;
  private readonly queryNames: string[];
  /** Variable names, in order of appearance. */
  readonly variables: string[];

  constructor(readonly template: string) {
    this.full = new UriTemplateLite(template);
    const query = TRAILING_QUERY.exec(template)?.[0] ?? '';
    this.path = query ? new UriTemplateLite(template.slice(0, -query.length)) : this.full;
    this.queryNames = namesOf(query);
    this.variables = namesOf(template);
  }

  /** The variables if `uri` matches the template, else undefined. */
  match(uri: string): TemplateVariables | undefined {
    let pathPart = uri;
    let search = '';
    if (this.queryNames.length > 0) {
      const at = uri.indexOf('?');
      if (at >= 0) [pathPart, search] = [uri.slice(0, at), uri.slice(at + 1)];
    }
    const variables = this.path.match(pathPart);
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
