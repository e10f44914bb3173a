/**
 * POST: one JSON-RPC message per request. Notifications and responses are accepted with 202; a
 * request is answered with JSON or SSE by its session's transport. A 2026-07-28 request (no
 * session id, modern `_meta` or version header) has its headers checked and gets a connection of
 * its own (see transports/http/server-wire/modern-headers.ts).
 */
import type { AuthInfo } from '../../core/auth.js';
import { ErrorCode } from '../../core/errors.js';
import { classifyMessage, type RequestId } from '../../core/jsonrpc.js';
import type { MessageInfo } from '../../core/transport.js';
import { MODERN_CONNECTION_ERA } from '../../server/era/modern-era.js';
import { sessionOwner, type AuthGate } from './auth-gate.js';
import type { Detach } from '../../transports/http/server-wire/background.js';
import { DEFAULT_MAX_BODY_BYTES, type HttpHandlerOptions } from './options.js';
import { checkModernHeaders, isModernPost } from '../../transports/http/server-wire/modern-headers.js';
import {
  checkVersion,
  isJsonContentType,
  parseAccept,
  readBody,
} from '../../transports/http/server-wire/request-checks.js';
import {
  emptyReply,
  httpError,
  messageError,
  SESSION_HEADER,
  SESSION_NOT_FOUND,
  SESSION_REQUIRED,
  SHUTTING_DOWN,
} from '../../transports/http/server-wire/responses.js';
import type { SessionManager } from './session-manager.js';
import type { HttpServerTransport } from './session-transport.js';
import type { HttpExchange, HttpReply, HttpRequestExtra } from '../../transports/http/server-wire/types.js';

/** What POST handling needs from the handler. */
export interface PostContext {
  readonly options: HttpHandlerOptions;
  readonly manager: SessionManager;
  readonly stateful: boolean;
  /** Shutdown has begun. */
  readonly closing: boolean;
  /** The resource server's checks, when the endpoint is protected. */
  readonly gate: AuthGate | undefined;
}

const UNSUPPORTED_TYPE = Object.freeze(
  httpError(415, ErrorCode.InvalidRequest, 'Content-Type must be application/json'),
);
const NOT_ACCEPTABLE = Object.freeze(
  httpError(406, ErrorCode.InvalidRequest, 'Accept must list application/json and text/event-stream'),
);
const PARSE_ERROR = Object.freeze(messageError(ErrorCode.ParseError, 'Parse error', null));
const BATCH_REFUSED = Object.freeze(
  messageError(ErrorCode.InvalidRequest, 'Batch requests are not supported', null),
);
/**
 * A second `initialize` on a live session: refused, the session stays as it was (re-negotiating
 * would, e.g., silently drop resumability). The spec allows one handshake per session; the official
 * SDKs answer the same way.
 */
const ALREADY_INITIALIZED = (id: RequestId): HttpReply =>
  httpError(400, ErrorCode.InvalidRequest, 'Invalid Request: Server already initialized', { id });

/**
 * What a handler sees as `ctx.info`: the request headers are built only if it reads them.
 */
class ExchangeInfo implements MessageInfo {
  declare authInfo?: unknown;
  declare closeSSEStream?: () => void;

  constructor(private readonly exchange: HttpExchange) {}

  get headers(): Headers {
    return this.exchange.headers();
  }
}

/**
 * Answer one POST (checks, body, session lookup or creation, hand-over to the transport).
 *
 * @example
 * return handlePost(context, exchange, { authInfo }, undefined);
 */
export async function handlePost(
  ctx: PostContext,
  exchange: HttpExchange,
  extra: HttpRequestExtra | undefined,
  /** The verified caller, when the endpoint is protected (already in `extra.authInfo` too). */
  auth: AuthInfo | undefined,
  /** The request's `waitUntil`, if the host gave one (see transports/http/server-wire/background.ts). */
  detach?: Detach,
): Promise<HttpReply> {
  if (!isJsonContentType(exchange.header('content-type'))) {
    exchange.discardBody();
    return UNSUPPORTED_TYPE;
  }
  const accepts = parseAccept(exchange.header('accept'));
  const acceptable = ctx.options.strictAccept
    ? accepts.jsonListed && accepts.sseListed
    : accepts.json || accepts.sse;
  if (!acceptable) {
    exchange.discardBody();
    return NOT_ACCEPTABLE;
  }
  const text = await readBody(exchange, ctx.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (typeof text !== 'string') return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return PARSE_ERROR;
  }
  if (Array.isArray(value)) return BATCH_REFUSED;
  const classified = classifyMessage(value);
  if (classified.kind === 'invalid') {
    const reply = classified.reply;
    if (!reply) return messageError(ErrorCode.InvalidRequest, 'Invalid message', null);
    return messageError(reply.error.code, reply.error.message, reply.id);
  }
  const message = classified.message;
  const isInitialize = classified.kind === 'request' && classified.message.method === 'initialize';
  if (auth && ctx.gate && classified.kind === 'request') {
    // The tool, resource or prompt named may need more scopes than the endpoint: 403 (step-up)
    // before any session or connection is made for the request.
    const { method, params, id } = classified.message;
    const refused = ctx.gate.scopeRefusal(auth, method, params, id);
    if (refused) return refused;
  }

  // The era of the message, decided once, here: a message without a session id whose `_meta` or
  // version header names 2026-07-28. Nothing after this asks again (the connection a modern
  // request gets is created with its era fixed).
  const modern =
    classified.kind !== 'response' &&
    exchange.header(SESSION_HEADER) === null &&
    isModernPost(classified.message, exchange.header('mcp-protocol-version'));
  // 2026-07-28 defines no client notification over HTTP (a closed stream is the cancel); the
  // binding says an accepted one gets 202 with no body. Nothing acts on it: no session, no connection.
  if (modern && classified.kind === 'notification') return emptyReply(202);

  // Everything from the session lookup to handing the message over is synchronous, so a
  // session cannot end in between (a new session's shared record is written before it exists).
  let transport: HttpServerTransport;
  if (modern && classified.kind === 'request') {
    // 2026-07-28: no sessions, every request stands alone. It gets its own short-lived connection
    // (as in stateless mode, also when sessions are on), so closing its stream cancels it alone.
    const refused = checkModernHeaders(exchange, classified.message);
    if (refused) return refused;
    const created = ctx.manager.createStateless();
    if (!created) return SHUTTING_DOWN;
    created.modern = true;
    if (created.session) created.session.protocolEra = MODERN_CONNECTION_ERA;
    transport = created;
  } else if (!ctx.stateful) {
    const refused = isInitialize ? undefined : checkVersion(exchange);
    if (refused) return refused;
    const created = ctx.manager.createStateless();
    if (!created) return SHUTTING_DOWN;
    transport = created;
  } else {
    const sessionId = exchange.header(SESSION_HEADER);
    if (sessionId === null) {
      if (!isInitialize) return SESSION_REQUIRED;
      if (ctx.closing) return SHUTTING_DOWN;
      const created = await ctx.manager.create(exchange, extra);
      if ('status' in created) return created;
      created.owner = sessionOwner(auth);
      transport = created;
    } else {
      const found = ctx.manager.find(sessionId, auth);
      if (!found) return SESSION_NOT_FOUND;
      if (isInitialize) return ALREADY_INITIALIZED(classified.message.id);
      const refused = checkVersion(exchange);
      if (refused) return refused;
      transport = found;
    }
  }

  const info = new ExchangeInfo(exchange);
  if (extra?.authInfo !== undefined) info.authInfo = extra.authInfo;
  if (classified.kind !== 'request') {
    transport.accept(message, info);
    if (transport.sessionId === undefined) {
      transport.endInput();
      // Answered 202 before the engine reads it; the connection closes once it has.
      detach?.(transport.session?.closed);
    } else detach?.(transport.routed());
    return emptyReply(202);
  }
  const id = classified.message.id;
  if (transport.hasRequest(id)) {
    return httpError(409, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(id)} is already in flight`, {
      id,
    });
  }
  ctx.manager.called(transport, classified.message.method);
  // A modern error's status (404, 400) must be decided before any stream opens: never eager.
  const eager = ctx.options.postResponse === 'sse' && !modern;
  const reply = transport.request(classified.message, info, accepts.json, accepts.sse, eager, exchange);
  // What may outlive the response: a stateless or 2026-07-28 connection closes after its answer
  // (or after its handler stopped, when the client left first); a session's request may still run
  // once its SSE connection is gone.
  if (detach)
    detach(transport.sessionId === undefined ? transport.session?.closed : transport.requestSettled(id));
  return reply;
}
