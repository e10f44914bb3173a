/**
 * RFC 6570 URI templates (expansion and matching) via uri-template-lite.
 */
import UriTemplateLite from 'uri-template-lite';

/** Variables a URI matched: a string per variable, or a list for exploded/list variables. */
export type TemplateVariables = { [name: string]: string | string[] };

/**
 * A compiled URI template.
 *
 * @example
 * const t = new UriTemplate('test://template/{id}/data');
 * t.match('test://template/123/data'); // { id: '123' }
 * t.expand({ id: '7' }); // 'test://template/7/data'
 */
export class UriTemplate {
  private readonly compiled: { match(uri: string): TemplateVariables | null; expand(v: object): string };
  /** Variable names, in order of appearance. */
  readonly variables: string[];

  constructor(readonly template: string) {
    this.compiled = new UriTemplateLite(template);
    this.variables = [...template.matchAll(/\{[+#./;?&]?([^}]*)\}/g)].flatMap((m) =>
      (m[1] ?? '').split(',').map((name) => name.replace(/(\*|:\d+)$/, '')),
    );
  }

  /** The variables if `uri` matches the template, else undefined. */
  match(uri: string): TemplateVariables | undefined {
    return this.compiled.match(uri) ?? undefined;
  }

  expand(variables: { [name: string]: string | number | string[] }): string {
    return this.compiled.expand(variables);
  }
}
