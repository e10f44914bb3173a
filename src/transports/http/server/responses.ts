/**
 * The HTTP responses the server handler builds: JSON bodies, SSE bodies and errors.
 */
import { ErrorCode } from '../../../core/errors.js';
import type { RequestId } from '../../../core/jsonrpc.js';

export const SESSION_HEADER = 'mcp-session-id';

function headers(contentType: string | undefined, sessionId: string | undefined): Headers {
  const result = new Headers();
  if (contentType !== undefined) result.set('content-type', contentType);
  if (sessionId !== undefined) result.set(SESSION_HEADER, sessionId);
  return result;
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
  options?: { id?: RequestId | null; sessionId?: string; allow?: string },
): Response {
  const error = { code, message };
  const body = JSON.stringify(
    options?.id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id: options.id, error },
  );
  const result = headers('application/json', options?.sessionId);
  if (options?.allow !== undefined) result.set('allow', options.allow);
  return new Response(body, { status, headers: result });
}

/** 400 with `-32600 Invalid Request`: the most common refusal. */
export function badRequest(message: string, status = 400): Response {
  return httpError(status, ErrorCode.InvalidRequest, message);
}

/** 404: the session id is unknown, expired or terminated; the client must initialize again. */
export function sessionNotFound(): Response {
  return httpError(404, ErrorCode.InvalidRequest, 'Session not found');
}

/** 503 during shutdown. */
export function shuttingDown(): Response {
  return httpError(503, ErrorCode.ConnectionClosed, 'Server is shutting down');
}

/** A JSON-RPC message as an `application/json` body. */
export function jsonResponse(body: string, sessionId: string | undefined): Response {
  return new Response(body, { status: 200, headers: headers('application/json', sessionId) });
}

/** An SSE body. `x-accel-buffering: no` keeps nginx from holding events back. */
export function sseResponse(body: ReadableStream<Uint8Array>, sessionId: string | undefined): Response {
  const result = headers('text/event-stream', sessionId);
  result.set('cache-control', 'no-cache, no-transform');
  result.set('x-accel-buffering', 'no');
  return new Response(body, { status: 200, headers: result });
}

/** A body-less response (202 Accepted for notifications, 200 for DELETE). */
export function emptyResponse(status: number, sessionId?: string): Response {
  return new Response(null, { status, headers: headers(undefined, sessionId) });
}

/** An SSE response that ends at once: a request stream closed without an answer. */
export function endedSseResponse(sessionId: string | undefined): Response {
  return sseResponse(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.close();
      },
    }),
    sessionId,
  );
}
