/**
 * POST: one JSON-RPC message per request. Notifications and responses are accepted with 202; a
 * request is answered with JSON or SSE by its session's transport.
 */
import { ErrorCode } from '../../../core/errors.js';
import { classifyMessage } from '../../../core/jsonrpc.js';
import type { MessageInfo } from '../../../core/transport.js';
import type { HttpRequestExtra } from './http-handler.js';
import { DEFAULT_MAX_BODY_BYTES, type HttpHandlerOptions } from './options.js';
import {
  discardBody,
  isJsonContentType,
  parseAccept,
  readBody,
  unsupportedVersion,
  versionOk,
} from './request-checks.js';
import {
  badRequest,
  emptyResponse,
  httpError,
  SESSION_HEADER,
  sessionNotFound,
  shuttingDown,
} from './responses.js';
import type { SessionManager } from './session-manager.js';
import type { HttpServerTransport } from './session-transport.js';

/** What POST handling needs from the handler. */
export interface PostContext {
  readonly options: HttpHandlerOptions;
  readonly manager: SessionManager;
  readonly stateful: boolean;
  /** Shutdown has begun. */
  readonly closing: boolean;
}

/**
 * Answer one POST (checks, body, session lookup or creation, hand-over to the transport).
 *
 * @example
 * return handlePost(context, request, { authInfo });
 */
export async function handlePost(
  ctx: PostContext,
  request: Request,
  extra: HttpRequestExtra | undefined,
): Promise<Response> {
  if (!isJsonContentType(request.headers.get('content-type'))) {
    discardBody(request);
    return httpError(415, ErrorCode.InvalidRequest, 'Content-Type must be application/json');
  }
  const accepts = parseAccept(request.headers.get('accept'));
  const acceptable = ctx.options.strictAccept
    ? accepts.jsonListed && accepts.sseListed
    : accepts.json || accepts.sse;
  if (!acceptable) {
    discardBody(request);
    return httpError(
      406,
      ErrorCode.InvalidRequest,
      'Accept must list application/json and text/event-stream',
    );
  }
  const text = await readBody(request, ctx.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (text instanceof Response) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return httpError(400, ErrorCode.ParseError, 'Parse error', { id: null });
  }
  if (Array.isArray(value))
    return httpError(400, ErrorCode.InvalidRequest, 'Batch requests are not supported', { id: null });
  const classified = classifyMessage(value);
  if (classified.kind === 'invalid') {
    const reply = classified.reply;
    return httpError(
      400,
      reply?.error.code ?? ErrorCode.InvalidRequest,
      reply?.error.message ?? 'Invalid message',
      {
        id: reply?.id ?? null,
      },
    );
  }
  const message = classified.message;
  const isInitialize = classified.kind === 'request' && classified.message.method === 'initialize';

  // Everything from the session lookup to handing the message over is synchronous, so a
  // session cannot end in between.
  let transport: HttpServerTransport;
  if (!ctx.stateful) {
    if (!isInitialize && !versionOk(request)) return unsupportedVersion(request);
    const created = ctx.manager.createStateless();
    if (!created) return shuttingDown();
    transport = created;
  } else {
    const sessionId = request.headers.get(SESSION_HEADER);
    if (sessionId === null) {
      if (!isInitialize) return badRequest('Bad Request: Mcp-Session-Id header is required');
      if (ctx.closing) return shuttingDown();
      const created = ctx.manager.create();
      if (!created) return httpError(503, ErrorCode.ConnectionClosed, 'Too many sessions; try again later');
      transport = created;
    } else {
      const found = ctx.manager.get(sessionId);
      if (!found) return sessionNotFound();
      if (!isInitialize && !versionOk(request)) return unsupportedVersion(request);
      transport = found;
    }
  }

  const info: MessageInfo = { headers: request.headers };
  if (extra?.authInfo !== undefined) info.authInfo = extra.authInfo;
  if (classified.kind !== 'request') {
    transport.accept(message, info);
    if (!ctx.stateful) transport.endInput();
    return emptyResponse(202);
  }
  const id = classified.message.id;
  if (transport.hasRequest(id)) {
    return httpError(409, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(id)} is already in flight`, {
      id,
    });
  }
  const eager = ctx.options.postResponse === 'sse';
  return transport.request(
    classified.message,
    info,
    { json: accepts.json, sse: accepts.sse, eager },
    request.signal,
  );
}
