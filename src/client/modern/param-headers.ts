/**
 * 2026-07-28 `x-mcp-header` on the client side (spec: server/tools "x-mcp-header" and the
 * Streamable HTTP "Custom Headers from Tool Parameters"): which tool parameters are mirrored as
 * `Mcp-Param-{name}` headers, whether a tool's annotations are valid at all (an invalid tool is
 * left out of `tools/list`), and the headers of one call (encoded with the core's Value Encoding,
 * src/core/header-value.ts). Pure functions; which annotations are valid is decided by the rule
 * module the server registers tools by (src/core/param-header-rules.ts).
 */
import { encodeHeaderValue } from '../../core/header-value.js';
import { scanParamHeaders } from '../../core/param-header-rules.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';

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
 * const found: MirroredParams = { ok: false, reason: 'invalid x-mcp-header on "p": its value must not be empty' };
 */
export type MirroredParams = { ok: true; params: MirroredParam[] } | { ok: false; reason: string };

/**
 * The mirrored parameters of a tool's `inputSchema`, or the first reason the tool is invalid,
 * under the rules the server also registers tools by ({@link scanParamHeaders}): an annotation
 * that is not a non-empty RFC 9110 token, a name used twice (case-insensitively), a parameter
 * that does not declare `type` string, integer or boolean, or an annotation not reachable from the
 * root through `properties` alone (under `items`, `anyOf`, `$defs`, `dependencies`...).
 *
 * @example
 * mirroredParams({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
 * // { ok: true, params: [{ path: ['region'], header: 'Region' }] }
 */
export function mirroredParams(inputSchema: unknown): MirroredParams {
  const scan = scanParamHeaders(inputSchema);
  return scan.ok ? { ok: true, params: scan.params } : { ok: false, reason: scan.reason };
}

function valueAt(args: JsonObject | undefined, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (!isJsonObject(node)) return undefined;
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
