/**
 * The one rule set for 2026-07-28 `x-mcp-header` annotations (server/tools.mdx "x-mcp-header",
 * transports/streamable-http.mdx "Schema Extension"), shared by both sides so they cannot drift:
 * the server refuses a tool that breaks a rule when it is registered, and the client leaves such a
 * tool out of `tools/list`. A tool one side accepts, the other accepts too. Pure and
 * runtime-neutral.
 *
 * The rules: the value is a non-empty RFC 9110 token (no space, separator, control or non-ASCII
 * character), unique ignoring case; the annotated property declares `type` string, integer or
 * boolean (alone or in a list with `"null"`: a null value just omits the header; `number` is not
 * permitted; an `enum`/`const` without `type` is not enough, since other SDKs' clients drop such
 * a tool); and it is reached from the schema root through `properties` keys alone. An annotation
 * anywhere else (under `items`, `anyOf`, `if`/`then`, `$defs`, `dependencies`, any keyword whose
 * value is an object, or on the root) makes the tool invalid.
 */
import { isJsonObject, type JsonObject } from './jsonrpc.js';

/**
 * One annotated parameter: its `properties` chain from the schema root and its header name (the
 * `{name}` of `Mcp-Param-{name}`).
 *
 * @example
 * const region: ParamHeader = { path: ['region'], header: 'Region' };
 */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly header: string;
}

/**
 * What {@link scanParamHeaders} found: every annotated parameter, or the first broken rule (`path`
 * locates the annotation; `reason` is a sentence naming it and the rule).
 *
 * @example
 * const scan: ParamHeaderScan = { ok: false, path: ['ratio'], reason: 'invalid x-mcp-header on "ratio": …' };
 */
export type ParamHeaderScan =
  { ok: true; params: ParamHeader[] } | { ok: false; path: readonly string[]; reason: string };

const ANNOTATION = 'x-mcp-header';
/** RFC 9110 §5.6.2 `token` = 1*tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);
/** Keywords whose value is a map of name → schema that is not a `properties` step. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set([
  '$defs',
  'definitions',
  'patternProperties',
  'dependentSchemas',
]);
/** Keywords whose value is data, not a schema: an object there is never walked. */
const DATA: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples', 'required', 'type']);

const UNREACHABLE =
  'it must be on a property reached from the schema root through `properties` only (not under items, anyOf/oneOf/allOf/not, if/then/else, $ref, $defs or any other keyword, nor on the root)';

function nameProblem(header: unknown): string | undefined {
  if (typeof header !== 'string') return `its value must be a string (found ${JSON.stringify(header)})`;
  if (header === '') return 'its value must not be empty';
  if (!TOKEN.test(header)) {
    return `its value ${JSON.stringify(header)} must be an HTTP field-name token (letters, digits and !#$%&'*+-.^_\`|~ only; no space, colon, control or non-ASCII character)`;
  }
  return undefined;
}

function typeProblem(property: JsonObject): string | undefined {
  const type = property.type;
  if (type === undefined) return 'it must declare `type` string, integer or boolean (found no `type`)';
  const types: unknown[] = Array.isArray(type) ? type : [type];
  const named = types.filter((t) => t !== 'null');
  if (named.length === 1 && typeof named[0] === 'string' && PRIMITIVES.has(named[0])) return undefined;
  const found = JSON.stringify(type);
  if (named.includes('number')) {
    return `it must be on a string, integer or boolean parameter; type "number" is not permitted (use "integer") (found ${found})`;
  }
  return `it must be on a string, integer or boolean parameter (found type ${found})`;
}

/**
 * Where an annotation sits, for messages.
 *
 * @example
 * where(['a', 'b']); // '"a.b"'
 * where([]); // 'the schema root'
 */
export function where(path: readonly string[]): string {
  return path.length === 0 ? 'the schema root' : `"${path.join('.')}"`;
}

/**
 * Every `x-mcp-header` annotation of a tool's `inputSchema` checked against the 2026-07-28 rules:
 * the mirrored parameters, or the first annotation that breaks one. A schema without annotations
 * (or that is not an object) has none.
 *
 * @example
 * scanParamHeaders({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
 * // { ok: true, params: [{ path: ['region'], header: 'Region' }] }
 * scanParamHeaders({ type: 'object', properties: { r: { enum: ['a'], 'x-mcp-header': 'R' } } }).ok; // false
 */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const params: ParamHeader[] = [];
  const seen = new Map<string, string>();
  let broken: { path: readonly string[]; reason: string } | undefined;
  const fail = (path: readonly string[], rule: string): void => {
    broken = { path, reason: `invalid x-mcp-header on ${where(path)}: ${rule}` };
  };
  // A schema object shared in two places is walked twice (fine); one that contains itself is not.
  const onPath = new WeakSet<JsonObject>();

  // `path` names the chain to `node`; `reachable` is false once the walk left `properties`.
  const walk = (node: JsonObject, path: readonly string[], reachable: boolean): void => {
    if (broken !== undefined || onPath.has(node)) return;
    onPath.add(node);
    if (Object.hasOwn(node, ANNOTATION)) {
      const header = node[ANNOTATION];
      const problem =
        !reachable || path.length === 0 ? UNREACHABLE : (nameProblem(header) ?? typeProblem(node));
      if (problem !== undefined) return fail(path, problem);
      const key = (header as string).toLowerCase();
      const other = seen.get(key);
      if (other !== undefined) {
        return fail(
          path,
          `its value "${header as string}" is already used by "${other}" (names compare ignoring case)`,
        );
      }
      seen.set(key, path.join('.'));
      params.push({ path, header: header as string });
    }
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === ANNOTATION || DATA.has(keyword)) continue;
      if (keyword === 'properties' || SCHEMA_MAPS.has(keyword)) {
        if (!isJsonObject(value)) continue;
        const step = keyword === 'properties' && reachable;
        for (const [name, child] of Object.entries(value)) {
          if (isJsonObject(child)) walk(child, step ? [...path, name] : [...path, keyword, name], step);
        }
      } else if (isJsonObject(value)) {
        // Any other keyword with an object value (a schema, or a map of them such as draft-07
        // `dependencies`, or an unknown keyword): an annotation under it is not reachable.
        walk(value, [...path, keyword], false);
      } else if (Array.isArray(value)) {
        value.forEach((child, index) => {
          if (isJsonObject(child)) walk(child, [...path, keyword, String(index)], false);
        });
      }
    }
    onPath.delete(node);
  };
  if (isJsonObject(inputSchema)) walk(inputSchema, [], true);
  return broken === undefined ? { ok: true, params } : { ok: false, ...broken };
}
