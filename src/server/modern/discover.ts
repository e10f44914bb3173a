/**
 * `server/discover`: the versions a client may send per request, the capabilities as they hold in
 * the modern era, the server's identity (in the result's `_meta`) and its instructions.
 */
import { withExtension } from '../../core/extensions.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { MODERN_PROTOCOL_VERSIONS } from '../../core/types/modern.js';
import type { SessionServer } from '../server-session.js';
import { TASKS_EXTENSION } from './tasks-wire.js';

/**
 * The `server/discover` result, before the modern decoration (`resultType`, `serverInfo`, caching
 * hints) every modern result gets.
 *
 * @example
 * discover(server); // { supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true } } }
 */
export function discover(
  server: Pick<SessionServer, 'capabilities' | 'instructions'> & { readonly tasksOffered?: boolean },
): JsonObject {
  // As declared: `listChanged` and `resources.subscribe` promise notifications on
  // `subscriptions/listen`, which a listen then acknowledges (see subscriptions/listen-filter.ts).
  const capabilities: JsonObject = { ...server.capabilities };
  // The tasks extension replaces the 2025-11-25 `tasks` capability, which must not appear here.
  delete capabilities.tasks;
  const declared = server.tasksOffered === true ? withExtension(capabilities, TASKS_EXTENSION) : capabilities;
  const result: JsonObject = { supportedVersions: [...MODERN_PROTOCOL_VERSIONS], capabilities: declared };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}
