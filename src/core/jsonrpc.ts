/**
 * The JSON-RPC 2.0 message model and a fast, hand-written envelope check.
 *
 * Per-message cost matters (every stdio line and HTTP body goes through here), so validation is a
 * handful of `typeof` checks, not a schema library.
 */
import { ErrorCode } from './errors.js';

/**
 * A request id. `0` and `""` are valid ids; `null` is not.
 *
 * @example
 * const ids: RequestId[] = [0, '', 42, 'req-7'];
 */
export type RequestId = string | number;

/**
 * Params/results are JSON objects; `_meta` is reserved on all of them.
 *
 * @example
 * const params: JsonObject = { name: 'forecast', arguments: { city: 'Oslo' }, _meta: { progressToken: 1 } };
 */
export type JsonObject = { [key: string]: unknown };

/**
 * @example
 * const req: JsonRpcRequest = { jsonrpc: '2.0', id: 1, method: 'ping' };
 */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}

/**
 * @example
 * const n: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/initialized' };
 */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

/**
 * @example
 * const r: JsonRpcResultResponse = { jsonrpc: '2.0', id: 1, result: {} };
 */
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: JsonObject;
}

/**
 * The `error` member of an error response.
 *
 * @example
 * const error: JsonRpcErrorObject = { code: -32601, message: 'Method not found: foo' };
 */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * `id` is `null` when the request's id could not be read (parse error, invalid envelope).
 *
 * @example
 * const e: JsonRpcErrorResponse = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
 */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

/**
 * A response: a result or an error.
 *
 * @example
 * const ok = (r: JsonRpcResponse): boolean => 'result' in r;
 */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
/**
 * Any JSON-RPC message a transport carries.
 *
 * @example
 * const message: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };
 * await transport.send(message);
 */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/**
 * What {@link classifyMessage} found. `invalid` carries the error response to send back (or
 * `undefined` when nothing may be answered, e.g. a broken notification).
 *
 * @example
 * const c: Classified = classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping' });
 * if (c.kind === 'request') console.log(c.message.method); // 'ping'
 */
export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; reply: JsonRpcErrorResponse | undefined };

/**
 * True for a valid JSON-RPC id: a string or a finite number.
 *
 * @example
 * isRequestId(0); // true
 * isRequestId(null); // false
 */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * Build an error response.
 *
 * @example
 * errorResponse(1, ErrorCode.MethodNotFound, 'Method not found: foo');
 */
export function errorResponse(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

const UNSAFE_ID =
  'Invalid Request: a numeric id must be an integer within ±(2^53-1) (larger numbers lose precision in JSON parsers); use a string id';

function invalid(id: RequestId | null, message: string, code: number = ErrorCode.InvalidRequest): Classified {
  return { kind: 'invalid', reply: errorResponse(id, code, message) };
}

/**
 * True for a JSON object (not null, not an array): the one check every parser of params, results
 * and `_meta` in Keel uses.
 *
 * @example
 * isJsonObject({ a: 1 }); // true
 * isJsonObject([1]); // false
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Classify a parsed JSON value as a request, notification or response, or produce the error to
 * answer it with. Batches (arrays) are rejected: MCP removed batching in 2025-06-18. A request
 * whose numeric id is not a safe integer (beyond 2^53, or fractional) is refused with `-32600` and
 * id null: JSON.parse has rounded it already, so no answer could carry the id the peer sent.
 *
 * @example
 * const c = classifyMessage(JSON.parse(line));
 * if (c.kind === 'invalid' && c.reply) transport.send(c.reply);
 */
export function classifyMessage(value: unknown): Classified {
  if (!isJsonObject(value)) {
    return invalid(null, Array.isArray(value) ? 'Batch requests are not supported' : 'Invalid Request');
  }
  const { id, method } = value;
  if (method === undefined && ('result' in value || 'error' in value)) {
    // A response. Never answer a response (two peers could ping-pong errors forever): a broken
    // one is dropped.
    if (value.jsonrpc === '2.0' && isRequestId(id)) {
      if (isJsonObject(value.result))
        return { kind: 'response', message: value as unknown as JsonRpcResponse };
      const error = value.error;
      if (isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string') {
        return { kind: 'response', message: value as unknown as JsonRpcResponse };
      }
    }
    return { kind: 'invalid', reply: undefined };
  }
  const hasId = id !== undefined;
  // An id we cannot echo (null, boolean, object) is answered with id null.
  if (hasId && !isRequestId(id)) return invalid(null, 'Invalid Request: id must be a string or a number');
  // JSON.parse already rounded a numeric id beyond 2^53: echoing it would answer another id.
  if (typeof id === 'number' && !Number.isSafeInteger(id)) return invalid(null, UNSAFE_ID);
  const replyId = hasId ? id : null;
  if (value.jsonrpc !== '2.0') return invalid(replyId, 'Invalid Request: jsonrpc must be "2.0"');
  if (typeof method !== 'string') return invalid(replyId, 'Invalid Request: method must be a string');
  const params = value.params;
  if (params !== undefined && !isJsonObject(params)) {
    if (!hasId) return { kind: 'invalid', reply: undefined };
    return invalid(id, 'Invalid params: params must be an object', ErrorCode.InvalidParams);
  }
  return hasId
    ? { kind: 'request', message: value as unknown as JsonRpcRequest }
    : { kind: 'notification', message: value as unknown as JsonRpcNotification };
}

/**
 * Parse error reply for a line/body that is not JSON.
 *
 * @example
 * parseErrorReply(); // { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }
 */
export const parseErrorReply = (): JsonRpcErrorResponse =>
  errorResponse(null, ErrorCode.ParseError, 'Parse error');
