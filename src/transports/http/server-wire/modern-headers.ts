/**
 * The 2026-07-28 HTTP binding's request metadata headers: which POSTs are modern requests, and the
 * header/body agreement checks (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) the spec
 * requires before the body is acted on (a gateway may have routed on the headers).
 */
import { ErrorCode } from '../../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonRpcRequest } from '../../../core/jsonrpc.js';
import { decodeHeaderValue } from '../../../core/header-value.js';
import { isModernVersion, MetaKey } from '../../../core/types/modern.js';
import type { HttpExchange, HttpReply } from './exchange.js';
import { httpError } from './responses.js';

/** The request's `_meta`, when it is an object. */
function metaOf(request: Pick<JsonRpcRequest, 'params'>): JsonObject | undefined {
  const params = request.params as unknown;
  if (!isJsonObject(params)) return undefined;
  const meta = params._meta;
  return isJsonObject(meta) ? meta : undefined;
}

/**
 * True when a POST without a session id is a 2026-07-28 message (request or notification): its `_meta` carries a modern key
 * (version, or capabilities of a client that forgot the version), or its `MCP-Protocol-Version`
 * header names a modern revision. Legacy clients send neither, so they keep the legacy path.
 *
 * @example
 * if (isModernPost(request, exchange.header('mcp-protocol-version'))) serveModern();
 */
export function isModernPost(request: Pick<JsonRpcRequest, 'params'>, versionHeader: string | null): boolean {
  const meta = metaOf(request);
  if (
    meta !== undefined &&
    (meta[MetaKey.ProtocolVersion] !== undefined || meta[MetaKey.ClientCapabilities] !== undefined)
  ) {
    return true;
  }
  return versionHeader !== null && isModernVersion(versionHeader.trim());
}

/**
 * True when a GET or DELETE without a session id comes from a 2026-07-28 client (its
 * `MCP-Protocol-Version` header names a modern revision): the modern binding is POST-only.
 *
 * @example
 * if (isModernClient(exchange)) return NOT_ALLOWED.modern; // 405
 */
export function isModernClient(exchange: HttpExchange): boolean {
  const version = exchange.header('mcp-protocol-version');
  return version !== null && isModernVersion(version.trim());
}

/** The body field `Mcp-Name` mirrors, per method. */
const NAME_FIELD: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = Object.freeze({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The tasks extension (SEP-2663): the task's id.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

function mismatch(request: JsonRpcRequest, message: string): HttpReply {
  return httpError(400, ErrorCode.HeaderMismatch, `Header mismatch: ${message}`, { id: request.id });
}

function describe(value: unknown): string {
  return value === undefined ? 'absent' : JSON.stringify(value);
}

/**
 * Check a modern request's metadata headers against its body. Returns the `400` / `-32020`
 * (HeaderMismatch) reply to send (`-32602` when the body has no version to compare with), or
 * undefined when they agree. A version the server does not
 * serve (header and body agreeing) is left to the modern pipeline, which answers `-32022`.
 *
 * @example
 * const refused = checkModernHeaders(exchange, request);
 * if (refused) return refused;
 */
export function checkModernHeaders(exchange: HttpExchange, request: JsonRpcRequest): HttpReply | undefined {
  const meta = metaOf(request);
  const bodyVersion = meta?.[MetaKey.ProtocolVersion];
  if (typeof bodyVersion !== 'string') {
    // A modern request (by its header or its capabilities) whose body lacks the version: the body
    // is malformed (-32602), as on stdio. Answered here: without the key, the connection could not
    // tell the request is modern.
    return httpError(
      400,
      ErrorCode.InvalidParams,
      `Missing required _meta key "${MetaKey.ProtocolVersion}" (2026-07-28 requests carry it on every request)`,
      { id: request.id },
    );
  }
  const versionHeader = exchange.header('mcp-protocol-version')?.trim() ?? null;
  if (versionHeader === null) return mismatch(request, 'MCP-Protocol-Version header is required');
  if (versionHeader !== bodyVersion) {
    return mismatch(
      request,
      `MCP-Protocol-Version header value ${JSON.stringify(versionHeader)} does not match body value ${describe(bodyVersion)}`,
    );
  }
  const methodHeader = exchange.header('mcp-method')?.trim() ?? null;
  if (methodHeader === null) return mismatch(request, 'Mcp-Method header is required');
  if (methodHeader !== request.method) {
    return mismatch(
      request,
      `Mcp-Method header value ${JSON.stringify(methodHeader)} does not match body value ${JSON.stringify(request.method)}`,
    );
  }
  const field = NAME_FIELD[request.method];
  if (field === undefined) return undefined;
  const params = request.params as unknown;
  const bodyName = isJsonObject(params) ? params[field] : undefined;
  const nameHeader = exchange.header('mcp-name');
  if (nameHeader === null) {
    // Nothing to mirror (a malformed body): the pipeline answers -32602 for the missing field.
    if (bodyName === undefined) return undefined;
    return mismatch(request, `Mcp-Name header is required for ${request.method}`);
  }
  const name = decodeHeaderValue(nameHeader);
  if (name === undefined) return mismatch(request, 'Mcp-Name header value is malformed');
  if (name !== bodyName) {
    return mismatch(
      request,
      `Mcp-Name header value ${JSON.stringify(name)} does not match body value ${describe(bodyName)}`,
    );
  }
  return undefined;
}
