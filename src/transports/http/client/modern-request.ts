/**
 * The 2026-07-28 side of the client transport: which outgoing messages are modern requests (read
 * from the message itself, so the transport keeps no era mode of its own) and the request metadata
 * headers the spec requires on their POSTs.
 */
import { encodeHeaderValue } from '../../../core/header-value.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../../../core/jsonrpc.js';
import { MetaKey } from '../../../core/types/modern.js';
import { isObject } from './http-body.js';

/**
 * The protocol version a request declares in `params._meta`, when it is a 2026-07-28 ("modern")
 * request; undefined for notifications, responses and legacy requests. Any string counts: a
 * client may probe with a version this SDK does not know, and the server answers `-32022`.
 *
 * @example
 * modernVersionOf({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }); // '2026-07-28'
 * modernVersionOf({ jsonrpc: '2.0', id: 1, method: 'tools/list' }); // undefined
 */
export function modernVersionOf(message: JsonRpcMessage): string | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const params: unknown = message.params;
  const meta = isObject(params) ? params._meta : undefined;
  const version = isObject(meta) ? meta[MetaKey.ProtocolVersion] : undefined;
  return typeof version === 'string' ? version : undefined;
}

/** The body field `Mcp-Name` mirrors, per method (the server checks the same table). */
const NAME_FIELD: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = Object.freeze({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The tasks extension (SEP-2663): the task's id.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

/**
 * Headers the transport sets itself on every POST: caller-supplied headers never replace them
 * (a gateway routes on them, and the server rejects a mismatch with the body).
 */
const OWN_HEADERS = new Set([
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
]);

/**
 * The headers of a modern request's POST: the caller's `extra` (`SendOptions.headers`, i.e. the
 * client's `Mcp-Param-*` headers) first, then `MCP-Protocol-Version` (the `_meta` version),
 * `Mcp-Method`, and `Mcp-Name` for `tools/call` / `prompts/get` (`params.name`) and
 * `resources/read` (`params.uri`), in the spec's Value Encoding. An `extra` header naming one of
 * the transport's own headers is ignored. No `Mcp-Name` when the body has no string to mirror: the
 * server answers such a malformed body with `-32602`.
 *
 * @example
 * const headers = modernHeaders(request, '2026-07-28', { 'Mcp-Param-Region': 'us-west1' });
 * headers['mcp-method']; // 'tools/call'
 */
export function modernHeaders(
  request: JsonRpcRequest,
  version: string,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (!OWN_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  headers['mcp-protocol-version'] = version;
  headers['mcp-method'] = request.method;
  const field = NAME_FIELD[request.method];
  const params: unknown = request.params;
  const name = field !== undefined && isObject(params) ? params[field] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/**
 * Ids of modern requests whose POST has ended, remembered for a while: the engine cancels a lost
 * request after the transport gave it up, and that `notifications/cancelled` must not be POSTed
 * (2026-07-28 HTTP has no client notifications) even when a legacy session exists meanwhile.
 * Bounded: the oldest id is forgotten first.
 *
 * @example
 * const ended = new RecentIds(256);
 * ended.add(7);
 * ended.has(7); // true
 */
export class RecentIds {
  private readonly ids = new Set<unknown>();

  constructor(private readonly limit: number) {}

  add(id: unknown): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.limit) this.ids.delete(this.ids.values().next().value);
  }

  has(id: unknown): boolean {
    return this.ids.has(id);
  }
}
