/**
 * The 2026-07-28 era, on every transport (a stdio or memory connection, and each HTTP request,
 * whose host gives it a connection of its own): validate the request's own `_meta` (its
 * {@link ModernRequest}), answer `server/discover` and `subscriptions/listen`, refuse the methods
 * 2026-07-28 removed, run the same handler table as the legacy era, and shape the answer the
 * 2026-07-28 way (`resultType`, `serverInfo`, caching hints, modern error codes).
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import { ErrorCode, McpError, MissingClientCapabilityError } from '../../core/errors.js';
import { shallowCopy } from '../../core/shallow-copy.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { MetaKey } from '../../core/types/modern.js';
import { methodNotFound } from '../method-not-found.js';
import type { ProtocolEra, ServerSession, SessionServer } from '../server-session.js';
import { discover } from '../modern/discover.js';
import { readModernRequest, type ModernRequest } from '../modern/modern-request.js';
import { serveListen } from '../modern/subscriptions/serve-listen.js';
import { RESULT_TYPE_TASK } from '../modern/tasks-wire.js';

/**
 * Methods 2026-07-28 removed: a modern request for one is answered `-32601`, as for any method the
 * server does not serve (the legacy era keeps them).
 */
const REMOVED = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  // The tasks extension dropped these two of the 2025-11-25 format.
  'tasks/result',
  'tasks/list',
]);

/**
 * The error for a modern request on a connection that chose the legacy era with `initialize`.
 *
 * @example
 * throw legacyConnection('2025-11-25');
 */
export function legacyConnection(version: string): McpError {
  return new McpError(
    ErrorCode.InvalidRequest,
    `This connection chose protocol ${version} with initialize; 2026-07-28 requests are not served on it (open a new connection without initialize)`,
  );
}

/** The 2026-07-28 form of an error a shared handler threw. */
function modernError(error: unknown, method: string): unknown {
  if (error instanceof MissingClientCapabilityError) return error.toMcpError();
  // 2026-07-28 (SEP-2164) moved "resource not found" from -32002 to -32602.
  if (method === 'resources/read' && error instanceof McpError && error.code === ErrorCode.ResourceNotFound) {
    return new McpError(ErrorCode.InvalidParams, error.message, error.data);
  }
  return error;
}

/**
 * Decorate a result: `resultType` (`complete` unless the handler set one), the server's identity in
 * `_meta`, and caching hints on complete cacheable results. A copy: handlers may return shared
 * objects.
 *
 * @example
 * modernResult(server, 'tools/list', {}, { tools: [] });
 * // { tools: [], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': ... }, ttlMs: 0, cacheScope: 'private' }
 */
export function modernResult(
  server: Pick<SessionServer, 'info' | 'cacheHints'>,
  method: string,
  params: JsonObject,
  result: JsonObject,
): JsonObject {
  const resultType = typeof result.resultType === 'string' ? result.resultType : 'complete';
  const meta = result._meta as JsonObject | undefined;
  const shaped = shallowCopy(result);
  shaped.resultType = resultType;
  shaped._meta = { ...meta, [MetaKey.ServerInfo]: server.info };
  if (resultType === 'complete') {
    const hint = server.cacheHints.for(method, params);
    if (hint) {
      shaped.ttlMs = hint.ttlMs;
      shaped.cacheScope = hint.cacheScope;
    }
  } else {
    // Interim results are never cacheable (caching.mdx), whatever a handler put there; a task's
    // `ttlMs` is its retention, not a caching hint.
    if (resultType !== RESULT_TYPE_TASK) delete shaped.ttlMs;
    delete shaped.cacheScope;
  }
  return shaped;
}

/** Serve one modern request on `session` (see {@link MODERN_ERA}). */
async function serveModern(
  session: ServerSession,
  params: JsonObject,
  ctx: RequestContext,
): Promise<JsonObject> {
  if (session.protocolVersion !== undefined) throw legacyConnection(session.protocolVersion);
  const request: ModernRequest = readModernRequest(ctx.meta, session);
  // Not over a fixed era (an HTTP host's MODERN_CONNECTION_ERA): the legacy era is excluded above.
  session.protocolEra ??= MODERN_ERA;
  const method = ctx.method;
  const server = session.server;
  if (method === 'server/discover') return modernResult(server, method, params, discover(server));
  if (method === 'subscriptions/listen')
    return modernResult(
      server,
      method,
      params,
      await serveListen(session, params, ctx, request.clientCapabilities),
    );
  if (REMOVED.has(method)) throw methodNotFound(method);
  const handler = server.handlerFor(method);
  if (!handler) throw methodNotFound(method);
  let result: JsonObject;
  try {
    result = await session.run(handler, params, ctx, request);
  } catch (error) {
    throw modernError(error, method);
  }
  return modernResult(server, method, params, result);
}

/**
 * The 2026-07-28 era. A connection that served a modern request follows it (every request must
 * carry its `_meta`); a connection that chose the legacy era with `initialize` refuses modern
 * requests (`-32600`). Client notifications of removed features (`notifications/roots/list_changed`:
 * roots are asked per request) do not reach handlers; connection-wide log messages are not sent
 * (a request asks for its own).
 *
 * @example
 * MODERN_ERA.serve(session, {}, discoverCtx); // the server/discover result
 */
export const MODERN_ERA: ProtocolEra = Object.freeze({
  name: 'modern' as const,
  sessionLogs: false,
  delivers: (method: string): boolean => method !== 'notifications/roots/list_changed',
  versionOf(_session: ServerSession, meta: JsonObject | undefined): string | undefined {
    const version = meta?.[MetaKey.ProtocolVersion];
    return typeof version === 'string' ? version : undefined;
  },
  serve(session: ServerSession, params: JsonObject, ctx: RequestContext): Promise<JsonObject> {
    const answer = serveModern(session, params, ctx);
    if (ctx.method === 'subscriptions/listen') {
      // The engine chains the answer's write on this promise; a graceful end waits behind it.
      const listen = session.server.listens.find(session.connection, ctx.id);
      if (listen !== undefined && listen.answer === undefined) listen.answer = answer;
    }
    return answer;
  },
});

/**
 * The modern era of a connection that exists for one 2026-07-28 request (an HTTP host's): the
 * same rules as {@link MODERN_ERA}, and the pipeline takes it as decided without reading the
 * request.
 *
 * @example
 * session.protocolEra = MODERN_CONNECTION_ERA; // hosts/http/handle-post.ts, before the request is handed over
 */
export const MODERN_CONNECTION_ERA: ProtocolEra = Object.freeze({ ...MODERN_ERA });
