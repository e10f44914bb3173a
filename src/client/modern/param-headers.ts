/**
 * 2026-07-28 `x-mcp-header` on the client side (spec: server/tools "x-mcp-header" and the
 * Streamable HTTP "Custom Headers from Tool Parameters"): which tool parameters are mirrored as
 * `Mcp-Param-{name}` headers, whether a tool's annotations are valid at all (an invalid tool is
 * left out of `tools/list`), and the headers of one call (encoded with the core's Value Encoding,
 * src/core/header-value.ts). Pure functions; the server keeps its own checks
 * (src/server/modern/param-headers.ts) under the same rules.
 */
import { encodeHeaderValue } from '../../core/header-value.js';
import type { JsonObject } from '../../core/jsonrpc.js';

/**
 * One mirrored parameter: its `properties` chain from the schema root and its header name.
 *
 * @example
 * const region: MirroredParam = { path: ['region'], header: 'Region' };
 */
export interface MirroredParam {
  readonly path: readonly string[];
  readonly header: string;
}

/**
 * What {@link mirroredParams} found: the parameters, or why the tool must be left out.
 *
 * @example
 * const found: MirroredParams = { ok: false, reason: 'x-mcp-header "" is empty' };
 */
export type MirroredParams = { ok: true; params: MirroredParam[] } | { ok: false; reason: string };

const KEY = 'x-mcp-header';
/** RFC 9110 `token` (`1*tchar`): what a header field name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);
/** Keywords whose value is one schema / a list of schemas / a map of name → schema. */
const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
];
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The primitive type a schema declares (`["string", "null"]` counts as string), if any. */
function primitiveType(schema: JsonObject): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return PRIMITIVES.has(type) ? type : undefined;
  if (!Array.isArray(type)) return undefined;
  const rest = type.filter((t) => t !== 'null');
  return rest.length === 1 && typeof rest[0] === 'string' && PRIMITIVES.has(rest[0]) ? rest[0] : undefined;
}

/**
 * The mirrored parameters of a tool's `inputSchema`, or the first reason the tool is invalid: an
 * annotation that is not a non-empty RFC 9110 token, a name used twice (case-insensitively), a
 * parameter that is not a string, integer or boolean, or an annotation not reachable from the
 * root through `properties` alone (under `items`, `anyOf`, `$defs`, `$ref`d schemas...).
 *
 * @example
 * mirroredParams({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
 * // { ok: true, params: [{ path: ['region'], header: 'Region' }] }
 */
export function mirroredParams(inputSchema: unknown): MirroredParams {
  const params: MirroredParam[] = [];
  const names = new Set<string>();
  let reason: string | undefined;
  const fail = (why: string): void => void (reason ??= why);

  const visit = (node: unknown, reachable: boolean, path: string[]): void => {
    if (!isObject(node) || reason !== undefined) return;
    if (KEY in node) {
      const header = node[KEY];
      const where = path.length === 0 ? 'the schema root' : `"${path.join('.')}"`;
      if (!reachable) return fail(`x-mcp-header on ${where} is not reachable through properties alone`);
      if (typeof header !== 'string' || header === '')
        return fail(`x-mcp-header of ${where} is empty or not a string`);
      if (!TOKEN.test(header))
        return fail(`x-mcp-header ${JSON.stringify(header)} is not a valid header name`);
      if (names.has(header.toLowerCase()))
        return fail(`x-mcp-header ${JSON.stringify(header)} is used twice`);
      if (primitiveType(node) === undefined)
        return fail(
          `x-mcp-header ${JSON.stringify(header)} is on ${where}, which is not a string, integer or boolean`,
        );
      names.add(header.toLowerCase());
      params.push({ path, header });
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = node[keyword];
      if (!isObject(map)) continue;
      for (const [name, child] of Object.entries(map)) {
        // Only `properties` keeps a parameter statically reachable; every other keyword ends it.
        const viaProperties = keyword === 'properties' && reachable;
        visit(child, viaProperties, viaProperties ? [...path, name] : path);
      }
    }
    for (const keyword of SCHEMA_KEYWORDS) visit(node[keyword], false, path);
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = node[keyword];
      if (Array.isArray(list)) for (const child of list) visit(child, false, path);
    }
  };

  // The root itself is not a parameter: an annotation there is reachable by no property chain.
  if (isObject(inputSchema) && KEY in inputSchema) fail('x-mcp-header on the schema root');
  visit(inputSchema, true, []);
  // The root has path [] and is never pushed (checked above), so every param has a path.
  return reason === undefined ? { ok: true, params } : { ok: false, reason };
}

function valueAt(args: JsonObject | undefined, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * The `Mcp-Param-*` headers of one call: a header per mirrored parameter that has a value
 * (absent or `null` → no header); strings as-is, integers in decimal, booleans `true`/`false`,
 * each encoded with {@link encodeHeaderValue}. Values of other kinds get no header (the server
 * will refuse the arguments anyway).
 *
 * @example
 * paramHeaders([{ path: ['region'], header: 'Region' }], { region: 'us-west1' }); // { 'Mcp-Param-Region': 'us-west1' }
 */
export function paramHeaders(
  params: readonly MirroredParam[],
  args: JsonObject | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of params) {
    const value = valueAt(args, path);
    let text: string | undefined;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' && Number.isFinite(value))
      text = Number.isInteger(value) ? BigInt(value).toString() : String(value);
    if (text !== undefined) headers[`Mcp-Param-${header}`] = encodeHeaderValue(text);
  }
  return headers;
}
