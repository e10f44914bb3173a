/**
 * The handler context for one entry of an `input_required` result. The legacy era hands the
 * sampling, elicitation and roots handlers the context of an inbound server→client request; in
 * 2026-07-28 there is no such request, so the same handlers get a context of their own: its
 * `signal` follows the caller's (and the connection's close), and it can send nothing to the
 * server (a handler's notifications are dropped; nested requests fail clearly).
 */
import { InflightRequest } from '../../core/engine/inbound.js';
import { RequestContext, type ContextHost } from '../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../core/errors.js';

const HOST: ContextHost = {
  sessionId: undefined,
  sendRelated: () => Promise.resolve(),
  requestFor: (_parent, method) =>
    Promise.reject(
      new McpError(
        ErrorCode.InvalidRequest,
        `${method}: an input request handler cannot send requests to the server (2026-07-28)`,
      ),
    ),
};

/**
 * A context for answering input request `key` (`method`), and `end()` to release it once the
 * handler settled. The context aborts with `signal`'s reason.
 *
 * @example
 * const { ctx, end } = inputContext('user_name', 'elicitation/create', signal);
 * try { return await handler(params, ctx); } finally { end(); }
 */
export function inputContext(
  key: string,
  method: string,
  signal: AbortSignal | undefined,
): { ctx: RequestContext; end: () => void } {
  const entry = new InflightRequest(`input:${key}`, method, undefined);
  const onAbort = (): void => entry.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const ctx = new RequestContext(HOST, entry, undefined, undefined);
  return {
    ctx,
    end: () => {
      entry.ended = true;
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
