/**
 * Where every inbound request of a server enters, on every transport and in both eras: its era is
 * decided here, once, and the era serves it. This is the one seam through which every request
 * passes before any handler runs (interceptors and telemetry hook in here).
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
import { isModernMeta } from '../modern/modern-request.js';
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
 * Serve one inbound request: decide its era, then let the era answer it.
 *
 * @example
 * connection.fallbackRequestHandler = (params, ctx) => enterRequest(session, params, ctx);
 */
export function enterRequest(
  session: ServerSession,
  params: JsonObject,
  ctx: RequestContext,
): JsonObject | Promise<JsonObject> {
  return eraOf(session, ctx).serve(session, params, ctx);
}
