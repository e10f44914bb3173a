/**
 * The legacy era (2024-11-05 … 2025-11-25): a connection starts with the `initialize` handshake,
 * which fixes its version and the client's capabilities; `ping` is answered here; every other
 * method goes to the server's handler table with the session's {@link LegacyRequest}.
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { negotiateVersion } from '../../core/protocol-version.js';
import type { ClientCapabilities } from '../../core/types/capabilities.js';
import type { Implementation } from '../../core/types/common.js';
import { methodNotFound } from '../method-not-found.js';
import type { ProtocolEra, ServerSession } from '../server-session.js';
import { LegacyRequest } from './legacy-request.js';

/**
 * `initialize`: one handshake per connection, as over HTTP (handle-post.ts answers a session's
 * second one the same way): renegotiating would change the version and capabilities under running
 * code. A handshake that failed (bad params) set nothing, so the client may try again.
 */
function initialize(session: ServerSession, params: JsonObject): JsonObject {
  if (session.protocolVersion !== undefined)
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: Server already initialized');
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== 'string') {
    throw new McpError(ErrorCode.InvalidParams, 'initialize: protocolVersion must be a string');
  }
  if (capabilities !== undefined && (typeof capabilities !== 'object' || capabilities === null)) {
    throw new McpError(ErrorCode.InvalidParams, 'initialize: capabilities must be an object');
  }
  const server = session.server;
  session.protocolVersion = negotiateVersion(protocolVersion);
  session.protocolEra = LEGACY_ERA;
  session.clientCapabilities = (capabilities as ClientCapabilities | undefined) ?? {};
  session.clientInfo =
    typeof clientInfo === 'object' && clientInfo !== null ? (clientInfo as Implementation) : undefined;
  // `registerCapabilities` replaces the object, so this reference keeps what was promised.
  session.serverCapabilities = server.capabilities;
  const result: JsonObject = {
    protocolVersion: session.protocolVersion,
    capabilities: server.capabilities,
    serverInfo: server.info,
  };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  session.onStateChange?.();
  return result;
}

/**
 * The legacy era. `server/discover` and `subscriptions/listen` are no methods of it: they go to
 * the handler table like any other (a user's handler, else `-32601`).
 *
 * @example
 * LEGACY_ERA.serve(session, { protocolVersion: '2025-11-25', capabilities: {} }, initializeCtx);
 */
export const LEGACY_ERA: ProtocolEra = Object.freeze({
  name: 'legacy' as const,
  sessionLogs: true,
  delivers: (): boolean => true,
  versionOf: (session: ServerSession): string | undefined => session.protocolVersion,
  serve(session: ServerSession, params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject> {
    const method = ctx.method;
    if (method === 'initialize') return initialize(session, params);
    if (method === 'ping') return {};
    const handler = session.server.handlerFor(method);
    if (!handler) throw methodNotFound(method);
    return session.run(handler, params, ctx, LegacyRequest.of(session));
  },
});
