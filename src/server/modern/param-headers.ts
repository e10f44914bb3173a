/**
 * 2026-07-28 over HTTP: tool parameters annotated `x-mcp-header` in the tool's `inputSchema` are
 * mirrored by the client as `Mcp-Param-{name}` headers. A gateway may route on those headers while
 * the server acts on the body, so the server must refuse (`-32020` HeaderMismatch, HTTP 400) a
 * header that is malformed, that disagrees with the body, or that is missing while the body has
 * the value. Checked here, not in the HTTP transport, because only the server knows the schema.
 */
import { decodeHeaderValue } from '../../core/header-value.js';
import { ErrorCode, McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';

/** One annotated parameter: its `properties` chain from the schema root and its header name. */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly header: string;
}

/**
 * The `x-mcp-header` annotations of an input schema, reached only through `properties` (the
 * spec's "statically reachable"; annotations under `items`, `anyOf`, `$ref`… are not honoured).
 *
 * @example
 * paramHeadersOf({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
 * // [{ path: ['region'], header: 'Region' }]
 */
export function paramHeadersOf(schema: JsonObject): ParamHeader[] {
  const found: ParamHeader[] = [];
  const walk = (node: JsonObject, path: string[]): void => {
    const properties = node.properties;
    if (!isJsonObject(properties)) return;
    for (const [key, child] of Object.entries(properties)) {
      if (!isJsonObject(child)) continue;
      const header = child['x-mcp-header'];
      if (typeof header === 'string' && header !== '') found.push({ path: [...path, key], header });
      walk(child, [...path, key]);
    }
  };
  walk(schema, []);
  return found;
}

function valueAt(args: JsonObject, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (!isJsonObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Header and body agree: strings as-is, booleans as `true`/`false`, numbers numerically. */
function agrees(header: string, body: unknown): boolean {
  if (typeof body === 'string') return header === body;
  if (typeof body === 'boolean') return header === String(body);
  if (typeof body === 'number') return header.trim() !== '' && Number(header) === body;
  return false;
}

const walked = new WeakMap<JsonObject, ParamHeader[]>();

/**
 * The annotated parameters of a tool's input schema, walked once per schema (a tool's schema is
 * fixed at registration). Empty for most tools: the caller then needs no request headers at all.
 *
 * @example
 * if (paramHeadersFor(tool.inputSchema).length > 0) check(request.headers);
 */
export function paramHeadersFor(schema: JsonObject): readonly ParamHeader[] {
  let params = walked.get(schema);
  if (params === undefined) walked.set(schema, (params = paramHeadersOf(schema)));
  return params;
}

function mismatch(message: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

/**
 * Check the `Mcp-Param-*` headers of a modern `tools/call` against its arguments. Returns the
 * `-32020` error to answer with, or undefined when every annotated parameter agrees.
 *
 * @example
 * const refused = checkParamHeaders(tool.inputSchema, args, request.headers);
 * if (refused) throw refused;
 */
export function checkParamHeaders(
  schema: JsonObject,
  args: JsonObject,
  headers: Headers,
): McpError | undefined {
  for (const { path, header } of paramHeadersFor(schema)) {
    const name = `Mcp-Param-${header}`;
    const raw = headers.get(name);
    const body = valueAt(args, path);
    // A null or absent value has no header (the client omits it), and none is expected.
    const present = body !== undefined && body !== null;
    if (raw === null) {
      if (present)
        return mismatch(`${name} header is required (the body has a value for "${path.join('.')}")`);
      continue;
    }
    const value = decodeHeaderValue(raw);
    if (value === undefined) return mismatch(`${name} header value is malformed`);
    if (!present || !agrees(value, body)) {
      return mismatch(
        `${name} header value ${JSON.stringify(value)} does not match body value ${present ? JSON.stringify(body) : 'absent'}`,
      );
    }
  }
  return undefined;
}
