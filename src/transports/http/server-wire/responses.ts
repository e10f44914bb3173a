/**
 * The replies the server handler builds: JSON bodies, SSE bodies and errors. Header objects are
 * frozen and shared (per handler, or per session when they carry its id), never built per reply.
 */
import { ErrorCode, httpStatusForCode } from '../../../core/errors.js';
import type { RequestId } from '../../../core/jsonrpc.js';
import type { HttpReply, SessionHeaders, SseSink, SseSource } from './types.js';

export type { SessionHeaders } from './types.js';

export const SESSION_HEADER = 'mcp-session-id';

/** No response headers. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** `application/json` without a session id. */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
});
/** An event stream without a session id. `x-accel-buffering: no` keeps nginx from holding events. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

const STATELESS_HEADERS: SessionHeaders = Object.freeze({
  json: JSON_HEADERS,
  sse: SSE_HEADERS,
  bare: NO_HEADERS,
});

/**
 * Header sets carrying `sessionId` (the shared id-less ones when it is undefined).
 *
 * @example
 * sessionHeaders(undefined).json; // { 'content-type': 'application/json' }
 */
export function sessionHeaders(sessionId: string | undefined): SessionHeaders {
  if (sessionId === undefined) return STATELESS_HEADERS;
  return new SessionHeaderSets(sessionId);
}

/**
 * One session's header sets, each built (and frozen) on first use: most sessions only ever answer
 * JSON, so the SSE and bare sets would be two objects per idle session (memory per session).
 */
class SessionHeaderSets implements SessionHeaders {
  private jsonSet: Readonly<Record<string, string>> | undefined;
  private sseSet: Readonly<Record<string, string>> | undefined;
  private bareSet: Readonly<Record<string, string>> | undefined;

  constructor(private readonly sessionId: string) {}

  get json(): Readonly<Record<string, string>> {
    return (this.jsonSet ??= Object.freeze({ ...JSON_HEADERS, [SESSION_HEADER]: this.sessionId }));
  }

  get sse(): Readonly<Record<string, string>> {
    return (this.sseSet ??= Object.freeze({ ...SSE_HEADERS, [SESSION_HEADER]: this.sessionId }));
  }

  get bare(): Readonly<Record<string, string>> {
    return (this.bareSet ??= Object.freeze({ [SESSION_HEADER]: this.sessionId }));
  }
}

/**
 * An HTTP error whose body is a JSON-RPC error response. Refusals of the HTTP envelope (403, 404,
 * 406, 415, ...) carry no `id`, as the transport spec describes; errors about the JSON-RPC
 * message itself pass `id` (`null` when it could not be read, as JSON-RPC requires).
 *
 * @example
 * return httpError(415, ErrorCode.InvalidRequest, 'Content-Type must be application/json');
 */
export function httpError(
  status: number,
  code: number,
  message: string,
  options?: { id?: RequestId | null; allow?: string },
): HttpReply {
  const error = { code, message };
  const body = JSON.stringify(
    options?.id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id: options.id, error },
  );
  const headers =
    options?.allow === undefined ? JSON_HEADERS : Object.freeze({ ...JSON_HEADERS, allow: options.allow });
  return { status, headers, body };
}

/**
 * A JSON-RPC message that could not be accepted: its error code picks the HTTP status (one table,
 * {@link httpStatusForCode}).
 *
 * @example
 * return messageError(ErrorCode.ParseError, 'Parse error', null); // 400
 */
export function messageError(code: number, message: string, id: RequestId | null): HttpReply {
  return httpError(httpStatusForCode(code), code, message, { id });
}

/**
 * The reply of a POST whose whole answer is the JSON-RPC error `error`: one mapping for both eras.
 * A quota refusal (`-32011`) is 429 with `Retry-After` (whole seconds, rounded up, from
 * `data.retryAfterMs`) in either era, like the host's own per-client 429; other errors take their
 * code's status in 2026-07-28 (-32601 → 404, -32602 → 400, ...) and stay 200 in the legacy era.
 *
 * @example
 * respond(errorAnswer(jsonReply(body, headers), message.error, transport.modern));
 */
export function errorAnswer(
  reply: HttpReply,
  error: { readonly code: number; readonly data?: unknown },
  modern: boolean,
): HttpReply {
  if (error.code === ErrorCode.QuotaExceeded) {
    const retryAfterMs = (error.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
    const seconds = typeof retryAfterMs === 'number' && retryAfterMs > 0 ? Math.ceil(retryAfterMs / 1000) : 1;
    return {
      ...reply,
      status: httpStatusForCode(error.code),
      headers: Object.freeze({ ...reply.headers, 'retry-after': String(seconds) }),
    };
  }
  return modern ? { ...reply, status: httpStatusForCode(error.code) } : reply;
}

/** 400 with `-32600 Invalid Request`: the most common refusal. */
export function badRequest(message: string, status = 400): HttpReply {
  return httpError(status, ErrorCode.InvalidRequest, message);
}

/** 404: the session id is unknown, expired or terminated; the client must initialize again. */
export const SESSION_NOT_FOUND: HttpReply = Object.freeze(
  httpError(404, ErrorCode.InvalidRequest, 'Session not found'),
);

/** 400: a request other than `initialize` must name its session. */
export const SESSION_REQUIRED: HttpReply = Object.freeze(
  badRequest('Bad Request: Mcp-Session-Id header is required'),
);

/** 503 during shutdown. */
export const SHUTTING_DOWN: HttpReply = Object.freeze(
  httpError(503, ErrorCode.ConnectionClosed, 'Server is shutting down'),
);

/** A JSON-RPC message as an `application/json` body. */
export function jsonReply(body: string, headers: SessionHeaders): HttpReply {
  return { status: 200, headers: headers.json, body };
}

/** An SSE body. */
export function sseReply(body: SseSource, headers: SessionHeaders): HttpReply {
  return { status: 200, headers: headers.sse, body };
}

/** A body-less reply (202 Accepted for notifications, 200 for DELETE). */
export function emptyReply(status: number, headers: SessionHeaders = STATELESS_HEADERS): HttpReply {
  return { status, headers: headers.bare, body: undefined };
}

/** An event stream that ends at once (a request stream closed without an answer). */
const ENDED_STREAM: SseSource = Object.freeze({
  attach(sink: SseSink): void {
    sink.end();
  },
});

/** An SSE reply that ends at once: a request stream closed without an answer. */
export function endedSseReply(headers: SessionHeaders): HttpReply {
  return sseReply(ENDED_STREAM, headers);
}
