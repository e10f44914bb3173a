/**
 * `server/discover`: the versions a client may send per request, the capabilities as they hold in
 * the modern era, the server's identity (in the result's `_meta`) and its instructions.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import type { ServerCapabilities } from '../../core/types/capabilities.js';
import { MODERN_PROTOCOL_VERSIONS } from '../../core/types/modern.js';
import type { Server } from '../server.js';

/**
 * The server's capabilities for modern clients. `listChanged` and `resources.subscribe` promise
 * notifications that 2026-07-28 delivers only on `subscriptions/listen`, which Keel does not serve
 * yet: they are left out rather than promised and broken.
 *
 * @example
 * modernCapabilities({ tools: { listChanged: true }, logging: {} }); // { tools: {}, logging: {} }
 */
export function modernCapabilities(capabilities: ServerCapabilities): ServerCapabilities {
  const result: ServerCapabilities = { ...capabilities };
  for (const list of ['tools', 'prompts', 'resources'] as const) {
    const declared = capabilities[list];
    if (declared === undefined) continue;
    const {
      listChanged: _listChanged,
      subscribe: _subscribe,
      ...rest
    } = declared as {
      listChanged?: boolean;
      subscribe?: boolean;
    };
    result[list] = rest;
  }
  return result;
}

/**
 * The `server/discover` result, before the modern decoration (`resultType`, `serverInfo`, caching
 * hints) every modern result gets.
 *
 * @example
 * discover(server); // { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } }
 */
export function discover(server: Server): JsonObject {
  const result: JsonObject = {
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities: modernCapabilities(server.capabilities),
  };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}
