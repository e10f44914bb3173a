/**
 * "No such method", in one place: the session (legacy), the 2026-07-28 pipeline and McpServer's
 * capability checks all answer it the same way, and none of them has to import the `Server`
 * class for it.
 */
import { ErrorCode, McpError } from '../core/errors.js';

/**
 * The error for a method this server does not serve.
 *
 * @example
 * server.setRequestHandler('resources/list', () => {
 *   throw methodNotFound('resources/list'); // -32601
 * });
 */
export function methodNotFound(method: string): McpError {
  return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
}
