/**
 * The caller of a request as visibility rules see it, and the caller a legacy session is taken
 * to have between requests (for `list_changed` and resource updates, which no request carries).
 */
import type { ServerSession } from '../server-session.js';
import type { ToolContext } from '../tool-context.js';
import type { ViewCaller } from './visibility.js';

const CALLER_KEY = 'keel.viewCaller';

/**
 * @internal The {@link ViewCaller} of a request served by `McpServer` (`era` from the request's
 * era object, never asked again).
 *
 * @example
 * const caller = callerOf(ctx, request.era);
 */
export function callerOf(ctx: ToolContext, era: 'legacy' | 'modern'): ViewCaller {
  return { auth: ctx.auth, session: ctx.session, era, meta: ctx.meta, info: ctx.info };
}

/**
 * @internal Remember `caller` as the caller of `session`: the latest request's (over HTTP a
 * session keeps its principal, but a refreshed token may grant other scopes).
 *
 * @example
 * recordCaller(session, caller);
 */
export function recordCaller(session: ServerSession, caller: ViewCaller): void {
  session.internal.set(CALLER_KEY, caller);
}

/**
 * @internal The caller last recorded for `session`, or undefined when none was (no request served
 * since the server has visibility rules, or not yet any).
 *
 * @example
 * const caller = recordedCaller(session);
 */
export function recordedCaller(session: ServerSession): ViewCaller | undefined {
  return session.internal.get(CALLER_KEY) as ViewCaller | undefined;
}
