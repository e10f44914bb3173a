/**
 * Where every inbound request of a server enters, on every transport and in both eras: its era is
 * decided here, once, and the era serves it. This is the one seam through which every request
 * passes before any handler runs: interceptors (`Server.use`) wrap it here, after its era is known.
 *
 * How the era is decided:
 * - Over HTTP the host decides per request (hosts/http/handle-post.ts): a 2026-07-28 request gets
 *   a connection of its own, created with the modern era fixed ({@link MODERN_CONNECTION_ERA});
 *   nothing is decided again here.
 * - On a stdio or memory connection the connection follows its client: a plain `initialize`
 *   chooses the legacy era (also after modern requests: they left no state behind), a request
 *   whose `_meta` names a 2026-07-28 key is modern (and is refused on a connection that chose the
 *   legacy era), and a request without either follows the era the connection already has (before
 *   any: legacy, except `server/discover`, which only 2026-07-28 defines).
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { MessageInfo } from '../../core/transport.js';
import { isModernMeta } from '../modern/modern-request.js';
import { InterceptedCall, runInterceptors, type ServerInterceptor } from '../interceptors.js';
import type { ProtocolEra, ServerSession } from '../server-session.js';
import { LEGACY_ERA } from './legacy-era.js';
import { MODERN_CONNECTION_ERA, MODERN_ERA } from './modern-era.js';

/**
 * The era that serves a request of `session` (see the file comment for the rules).
 *
 * @example
 * eraOf(session, ctx).name; // 'legacy' | 'modern'
 */
export function eraOf(session: ServerSession, ctx: RequestContext): ProtocolEra {
  const current = session.protocolEra;
  if (current === MODERN_CONNECTION_ERA) return current;
  // Legacy requests rarely have `_meta`: the hot path pays one `undefined` check here.
  if (isModernMeta(ctx.meta)) return MODERN_ERA;
  const method = ctx.method;
  if (method === 'initialize' || method === 'ping') return LEGACY_ERA;
  if (current !== undefined) return current;
  return method === 'server/discover' ? MODERN_ERA : LEGACY_ERA;
}

/**
 * Serve one inbound request: decide its era, run it through the server's interceptors (if any,
 * outermost first), then let the era answer it.
 *
 * @example
 * connection.fallbackRequestHandler = (params, ctx) => enterRequest(session, params, ctx, server.interceptors);
 */
export function enterRequest(
  session: ServerSession,
  params: JsonObject,
  ctx: RequestContext,
  interceptors: readonly ServerInterceptor[] | undefined,
): JsonObject | Promise<JsonObject> {
  const era = eraOf(session, ctx);
  // No interceptors: no call object, no promise (the plain path stays what it was).
  if (interceptors === undefined) return era.serve(session, params, ctx);
  return runInterceptors(
    interceptors,
    new InterceptedCall('request', ctx.method, params, era, session, ctx.info, ctx),
  );
}

/**
 * Deliver one inbound notification through the server's interceptors to `deliver` (the session's
 * own handling: `notifications/initialized`, or the server's notification handler).
 *
 * @example
 * enterNotification(session, method, params, info, server.interceptors, (p) => handle(p));
 */
export function enterNotification(
  session: ServerSession,
  method: string,
  params: JsonObject,
  info: MessageInfo | undefined,
  interceptors: readonly ServerInterceptor[],
  deliver: (params: JsonObject) => void | Promise<void>,
): Promise<void> {
  // Notifications carry no era of their own: the connection's (legacy before any request).
  const era = session.protocolEra ?? LEGACY_ERA;
  const call = new InterceptedCall('notification', method, params, era, session, info, undefined, deliver);
  return runInterceptors(interceptors, call).then(() => undefined);
}
