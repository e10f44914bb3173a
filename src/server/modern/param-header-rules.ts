/**
 * The rules 2026-07-28 sets for `x-mcp-header` annotations (server/tools.mdx "x-mcp-header",
 * transports/streamable-http.mdx "Schema Extension"). A client over HTTP must drop a tool that
 * breaks one of them from `tools/list`, so a server that published one would have a tool nobody can
 * call: Keel refuses it when the tool is registered, naming the tool, the property and the rule.
 */
import type { JsonObject } from '../../core/jsonrpc.js';

const ANNOTATION = 'x-mcp-header';
/** RFC 9110 §5.6.2 `token` = 1*tchar: no space, no separator, no control or non-ASCII character. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose value is a map of name → schema that is not a `properties` step. */
const SCHEMA_MAPS = new Set(['$defs', 'definitions', 'patternProperties', 'dependentSchemas']);
/** Keywords whose value is data, not a schema: an object there is not walked. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required', 'type']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrimitiveValue(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || Number.isSafeInteger(value);
}

/**
 * Why the type of an annotated property is not allowed, or undefined when it is. Allowed: `type`
 * `string`, `integer` or `boolean` (optionally in a list with `null`: a null value just omits the
 * header), or no `type` but an `enum` / `const` of such values.
 */
function typeProblem(property: JsonObject): string | undefined {
  const type = property.type;
  if (type === undefined) {
    const values = Array.isArray(property.enum)
      ? property.enum
      : 'const' in property
        ? [property.const]
        : undefined;
    if (values !== undefined && values.every((v) => v === null || isPrimitiveValue(v))) return undefined;
    return 'it must declare `type` string, integer or boolean (found no `type`)';
  }
  const types = Array.isArray(type) ? type : [type];
  const named = types.filter((t) => t !== 'null');
  if (named.length === 1 && typeof named[0] === 'string' && PRIMITIVES.has(named[0])) return undefined;
  const found = JSON.stringify(type);
  if (named.includes('number')) {
    return `it must be on a string, integer or boolean parameter; type "number" is not permitted (use "integer") (found ${found})`;
  }
  return `it must be on a string, integer or boolean parameter (found type ${found})`;
}

function problemWithName(header: unknown): string | undefined {
  if (typeof header !== 'string') return `its value must be a string (found ${JSON.stringify(header)})`;
  if (header === '') return 'its value must not be empty';
  if (!TOKEN.test(header)) {
    return `its value ${JSON.stringify(header)} must be an HTTP field-name token (letters, digits and !#$%&'*+-.^_\`|~ only; no space, colon, control or non-ASCII character)`;
  }
  return undefined;
}

function where(path: readonly string[]): string {
  return path.length === 0 ? 'the schema root' : `"${path.join('.')}"`;
}

/**
 * Throw if the tool's input schema has an `x-mcp-header` annotation 2026-07-28 calls invalid: a
 * value that is not a non-empty HTTP token, two values equal ignoring case, an annotated parameter
 * that is not a string, integer or boolean, or an annotation not reached from the root through
 * `properties` alone (under `items`, `anyOf`, `$ref`, `$defs`…, or on the root itself).
 *
 * @example
 * checkParamHeaderAnnotations('execute_sql', {
 *   type: 'object',
 *   properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
 * }); // fine; with `type: 'number'` it throws, naming the tool, "region" and the rule
 */
export function checkParamHeaderAnnotations(tool: string, schema: JsonObject): void {
  const fail = (path: readonly string[], rule: string): never => {
    throw new Error(`Tool "${tool}": invalid x-mcp-header on ${where(path)}: ${rule}`);
  };
  const seen = new Map<string, string>();
  // A schema object shared in two places is walked twice (fine); one that contains itself is not.
  const onPath = new WeakSet<JsonObject>();
  // `path` names the properties chain to `node`; `reachable` is false once the walk left it.
  const walk = (node: JsonObject, path: readonly string[], reachable: boolean): void => {
    if (onPath.has(node)) return;
    onPath.add(node);
    if (Object.hasOwn(node, ANNOTATION)) {
      const header = node[ANNOTATION];
      if (!reachable || path.length === 0) {
        fail(
          path,
          'it must be on a property reached from the schema root through `properties` only (not under items, anyOf/oneOf/allOf/not, if/then/else, $ref or $defs, nor on the root)',
        );
      }
      const nameProblem = problemWithName(header);
      if (nameProblem !== undefined) fail(path, nameProblem);
      const type = typeProblem(node);
      if (type !== undefined) fail(path, type);
      const key = (header as string).toLowerCase();
      const other = seen.get(key);
      if (other !== undefined) {
        fail(
          path,
          `its value "${header as string}" is already used by "${other}" (names compare ignoring case)`,
        );
      }
      seen.set(key, path.join('.'));
    }
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === ANNOTATION || DATA.has(keyword)) continue;
      if (keyword === 'properties' || SCHEMA_MAPS.has(keyword)) {
        if (!isObject(value)) continue;
        const step = keyword === 'properties' && reachable;
        for (const [name, child] of Object.entries(value)) {
          if (isObject(child)) walk(child, step ? [...path, name] : [...path, keyword, name], step);
        }
      } else if (isObject(value)) {
        walk(value, [...path, keyword], false);
      } else if (Array.isArray(value)) {
        value.forEach((child, index) => {
          if (isObject(child)) walk(child, [...path, keyword, String(index)], false);
        });
      }
    }
    onPath.delete(node);
  };
  walk(schema, [], true);
}
