/**
 * The replies a process gives when a relayed exchange cannot be completed: the shared store or
 * relay is unavailable (503), or the owner of the session stopped while the request waited.
 */
import { ErrorCode, StoreUnavailableError } from '../../../core/errors.js';
import { isRequestId, type RequestId } from '../../../core/jsonrpc.js';
import { httpError, JSON_HEADERS } from '../../../transports/http/server-wire/responses.js';
import type { HttpReply } from '../../../transports/http/server-wire/types.js';

/** What the client reads when the process holding its session stopped mid-request. */
export const OWNER_STOPPED = 'the server process holding this session stopped';
/** What the client reads when the process it is connected to shuts down mid-request. */
export const FORWARDER_CLOSING = 'Server is shutting down';

/**
 * 503 naming the store or relay that failed (its `StoreUnavailableError` message: store and
 * operation, no internals), with `Retry-After`.
 *
 * @example
 * try { await sessions.get(id); } catch (error) { return storeUnavailableReply(error); }
 */
export function storeUnavailableReply(error: unknown): HttpReply {
  const message =
    error instanceof StoreUnavailableError
      ? `Service unavailable: ${error.message}`
      : 'Service unavailable: the shared session store failed';
  const reply = httpError(503, ErrorCode.ConnectionClosed, message);
  return { ...reply, headers: { ...reply.headers, 'retry-after': '1' } };
}

/** The header that marks {@link MOVED}: a forwarder reads it, a client never sees it. */
export const MOVED_HEADER = 'keel-session-moved';

/**
 * 421 to a relayed request for a session this process does not hold (any more): it was handed
 * over or adopted elsewhere, or it ended. The forwarder reads the session's record again and
 * routes once more (issue 28) instead of answering 404 for a session that lives on.
 *
 * @example
 * if (!manager.has(sessionId)) return MOVED;
 */
export const MOVED: HttpReply = Object.freeze(
  (() => {
    const reply = httpError(421, ErrorCode.ConnectionClosed, 'Misdirected request: the session moved');
    return { ...reply, headers: Object.freeze({ ...reply.headers, [MOVED_HEADER]: '1' }) };
  })(),
);

/**
 * 503 while this process drains and no peer can take the request. `Retry-After: 0`: the request
 * was not processed, and sent again it reaches another process through the balancer at once
 * (Keel's client resends it; see `unavailableRetries`).
 */
export const DRAINING: HttpReply = Object.freeze(
  (() => {
    const reply = httpError(
      503,
      ErrorCode.ConnectionClosed,
      'Service unavailable: this process is shutting down and no other process can take the request',
    );
    return { ...reply, headers: Object.freeze({ ...reply.headers, 'retry-after': '0' }) };
  })(),
);

/**
 * The reply to a relayed request whose owner stopped before it answered: for a POST, 200 JSON
 * with a `-32000` error for its request (the client's call fails, the client can start a new
 * session); 503 for GET and DELETE. A POST that held no request (a client's answer to an
 * elicitation or sampling request, a notification) gets 503 + `Retry-After`: it may never have
 * reached the owner (the relay's connection broke on its way), and a handler waiting for that
 * answer would wait until its own timeout. Sent again it is routed afresh; an answer that did
 * arrive twice is ignored (its request is no longer pending), as are notifications for requests
 * that ended.
 *
 * @example
 * resolve(ownerStoppedReply('POST', bodyText));
 */
export function ownerStoppedReply(
  method: string,
  body: string | undefined,
  /** Why: {@link OWNER_STOPPED}, or this process shutting down. */
  reason = OWNER_STOPPED,
): HttpReply {
  if (method !== 'POST') return httpError(503, ErrorCode.ConnectionClosed, `Service unavailable: ${reason}`);
  const ids = requestIds(body);
  if (ids.length === 0) {
    const reply = httpError(503, ErrorCode.ConnectionClosed, `Service unavailable: ${reason}; send it again`);
    return { ...reply, headers: { ...reply.headers, 'retry-after': '1' } };
  }
  const answers = ids.map((id) => ({
    jsonrpc: '2.0',
    id,
    error: { code: ErrorCode.ConnectionClosed, message: reason },
  }));
  return {
    status: 200,
    headers: JSON_HEADERS,
    body: JSON.stringify(answers.length === 1 ? answers[0] : answers),
  };
}

/** The ids of the JSON-RPC requests in a POST body (one message, or a batch). */
function requestIds(body: string | undefined): RequestId[] {
  if (body === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: RequestId[] = [];
  for (const message of Array.isArray(value) ? value : [value]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (typeof method === 'string' && isRequestId(id)) ids.push(id);
  }
  return ids;
}
