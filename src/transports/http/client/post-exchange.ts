/**
 * One POST of the Streamable HTTP client transport and its answer: a JSON body, an SSE stream
 * (followed, and resumed with GET + `Last-Event-ID` for a legacy request), `202` for a
 * notification, or a refusal (the JSON-RPC error for the request if the body has one, else a
 * local error; a 404 in a session expires it).
 */
import { ConnectionClosedError } from '../../../core/errors.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../../core/jsonrpc.js';
import { HttpTransportError } from '../../../core/http-errors.js';
import { discard, mediaType } from './http-body.js';
import type { HttpSession } from './http-session.js';
import type { InboundMessages } from './inbound-messages.js';
import type { OutboundRequest, OutboundTable } from './outbound-table.js';
import { readJsonMessages, readRefusal } from './post-answers.js';
import { followStream, type StreamSettings } from './stream-follower.js';

/** The message of a failure after `close()`. */
export const CLOSED = 'The Streamable HTTP transport is closed';

/**
 * What an exchange needs from its transport.
 *
 * @example
 * await exchange(host, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, request, false, undefined);
 */
export interface ExchangeHost {
  readonly http: HttpSession;
  readonly outbound: OutboundTable;
  readonly streams: StreamSettings;
  readonly inbound: InboundMessages;
  /** Largest `application/json` answer read, in bytes (`maxJsonSize`). */
  readonly maxJsonSize: number;
  /** `close()` was called. */
  isClosed(): boolean;
  /** `notifications/initialized` went through: open the standalone GET stream (if wanted). */
  openStandalone(): void;
  /** Record and report a transport failure; returns it. */
  fail<E>(error: E): E;
  /** The answer to `id` can no longer arrive. */
  lose(id: RequestId, cause: Error): void;
}

/**
 * POST one message and read its answer; `modern` holds a 2026-07-28 request's headers.
 *
 * @example
 * await exchange(host, message, message, true, undefined); // an initialize
 */
export async function exchange(
  host: ExchangeHost,
  message: JsonRpcMessage,
  request: JsonRpcRequest | undefined,
  initialize: boolean,
  modern: Record<string, string> | undefined,
): Promise<void> {
  const method = 'method' in message ? message.method : undefined;
  const entry = host.outbound.open(request?.id, initialize, modern !== undefined);
  let followed = false;
  let missing: HttpTransportError | undefined;
  try {
    let posted: Awaited<ReturnType<HttpSession['post']>>;
    try {
      posted = await host.http.post(JSON.stringify(message), initialize, entry.controller.signal, modern);
    } catch (error) {
      throw sendFailed(host, error, entry.controller.signal);
    }
    const { response, session } = posted;
    if (!response.ok) return await refused(host, response, request?.id, session, entry.modern);
    if (!request) {
      // Notifications and responses are answered 202 (some servers send a body anyway: ignored).
      await discard(response);
      if (method === 'notifications/initialized') host.openStandalone();
      return;
    }
    const type = mediaType(response);
    if (type === 'text/event-stream' && response.body) {
      followed = true;
      entry.stream = { session };
      void followRequest(host, request.id, entry, response, session);
    } else if (type === 'application/json') {
      for (const answer of await readJsonMessages(response, host.maxJsonSize)) host.inbound.deliver(answer);
    } else {
      await discard(response);
      if (type !== undefined && response.status !== 202 && response.status !== 204) {
        throw new HttpTransportError(`Unexpected content type ${type} for a request`, response.status);
      }
    }
    // A legacy answer may still come on the standalone GET stream; 2026-07-28 has none, so a
    // modern request whose POST is over without its response would wait for ever (a listen has no
    // timeout): it is lost now, alone, and the transport stays usable.
    if (entry.modern && !followed && !entry.answered) missing = noAnswer(response, type, request.id);
  } finally {
    if (!followed) host.outbound.release(request?.id, entry);
  }
  if (missing && request) host.lose(request.id, missing);
}

/** Why a modern request's POST ended without its response: the status and what the body was. */
function noAnswer(response: Response, type: string | undefined, id: RequestId): HttpTransportError {
  const body =
    type === 'application/json'
      ? 'a JSON body without it'
      : type === undefined
        ? 'no body'
        : `a ${type} body`;
  return new HttpTransportError(
    `HTTP ${response.status} answered 2026-07-28 request ${JSON.stringify(id)} with ${body}; ` +
      'its response can no longer arrive (this era has no GET stream)',
    response.status,
  );
}

/** A non-2xx answer to a POST: the JSON-RPC error for the request if there is one, else a local error. */
async function refused(
  host: ExchangeHost,
  response: Response,
  id: RequestId | undefined,
  session: string | undefined,
  modern: boolean,
): Promise<void> {
  const refusal = await readRefusal(response, id, modern);
  // The session is gone, whatever the body says: the server did not process this POST.
  if (response.status === 404 && session !== undefined) throw host.http.expire(session, true);
  if ('answer' in refusal) return host.inbound.deliver(refusal.answer);
  // A 2026-07-28 request refused without a JSON-RPC answer is what a legacy server says to an
  // era probe: the caller gets it (and falls back); it is no fault of the transport's.
  if (modern) throw refusal.error;
  throw host.fail(refusal.error);
}

async function followRequest(
  host: ExchangeHost,
  id: RequestId,
  entry: OutboundRequest,
  response: Response,
  session: string | undefined,
): Promise<void> {
  // Resume within the session the request was made in, even if a new one started meanwhile.
  // 2026-07-28 has no GET: a modern request's stream that breaks early is lost.
  const reopen = entry.modern
    ? undefined
    : (lastEventId: string | undefined, signal: AbortSignal): Promise<Response> =>
        host.http.get(signal, lastEventId, session);
  const onData = (data: string): void => host.inbound.onEventData(data, id);
  const follower = { ...host.streams, onData, reopen };
  const result = await followStream(follower, response, entry.controller.signal, () => entry.answered, true);
  host.outbound.release(id, entry);
  if (result.lost) host.lose(id, result.cause);
}

function sendFailed(host: ExchangeHost, error: unknown, signal: AbortSignal): unknown {
  if (!signal.aborted) return host.fail(error);
  return new ConnectionClosedError(host.isClosed() ? CLOSED : 'The request was cancelled', { cause: error });
}
