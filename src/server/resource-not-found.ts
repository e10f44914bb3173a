/**
 * "No such resource", said by a resource template's reader the way the server says it for a URI
 * nothing matches, so the client sees the same error either way.
 */
import { ErrorCode, McpError } from '../core/errors.js';

/**
 * The error for a URI that names no resource: `-32002` with `data: { uri }` (2025-11-25 and
 * earlier); a 2026-07-28 request gets it as `-32602`, as that revision says. Throw it from a
 * template's reader when the variables match the template but name nothing. It is the client's
 * mistake, not a failure of the reader: `McpServer`'s `onerror` is not called for it (a low-level
 * `Server` handler may throw it too, and gets the same wire error; its failures are all reported).
 *
 * @example
 * server.resourceTemplate('user', 'users://{id}/profile', {}, (uri, { id }) => {
 *   const user = users.get(String(id));
 *   if (!user) throw resourceNotFound(uri);
 *   return JSON.stringify(user);
 * });
 */
export function resourceNotFound(uri: string, message = `Resource not found: ${uri}`): McpError {
  return new McpError(ErrorCode.ResourceNotFound, message, { uri });
}

/** @internal Whether `error` is the "no such resource" answer (not a failure to report). */
export function isResourceNotFound(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ResourceNotFound;
}
