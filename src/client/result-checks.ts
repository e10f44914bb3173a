/**
 * Cheap shape checks of server results: enough that typed results are what their types say, with
 * a clear {@link ProtocolViolationError} instead of a `TypeError` deep in user code.
 */
import type { JsonObject } from '../core/jsonrpc.js';
import { ProtocolViolationError } from './errors.js';

/** Require `result[key]` to be an array (the list member of a list/read/get result). */
export function requireArray<T>(result: JsonObject, key: string, method: string): T {
  if (!Array.isArray(result[key])) {
    throw new ProtocolViolationError(`${method}: the server's result has no ${key} array`);
  }
  return result as T;
}

/** A `tools/call` result: `content` defaults to `[]`; anything else malformed is refused. */
export function checkCallToolResult<T>(result: JsonObject, name: string): T {
  if (result.content === undefined) return { ...result, content: [] } as T;
  if (!Array.isArray(result.content)) {
    throw new ProtocolViolationError(`tools/call ${name}: content must be an array`);
  }
  const structured = result.structuredContent;
  if (structured !== undefined && (typeof structured !== 'object' || structured === null)) {
    throw new ProtocolViolationError(`tools/call ${name}: structuredContent must be an object`);
  }
  return result as T;
}

/** A `completion/complete` result must carry `completion.values`. */
export function checkCompleteResult<T>(result: JsonObject): T {
  const completion = result.completion as JsonObject | undefined;
  if (typeof completion !== 'object' || completion === null || !Array.isArray(completion.values)) {
    throw new ProtocolViolationError('completion/complete: the result has no completion.values array');
  }
  return result as T;
}
