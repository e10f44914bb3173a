/**
 * One request as its protocol era presents it to a handler. The era of a request is decided once,
 * where it enters (era/request-pipeline.ts); from then on everything that differs between eras
 * for the handler goes through this object: who the client is, whether a log message may go out,
 * how a back-channel call reaches the client, how a failure becomes a wire error. Handlers, the
 * context and the registries call it and never ask which era they are in.
 *
 * Two implementations: `LegacyRequest` (era/legacy-request.ts, one per session: the facts come
 * from the `initialize` handshake) and `ModernRequest` (modern/modern-request.ts, one per request:
 * the facts come from the request's own `_meta`). A third revision adds a third.
 */
import type { RequestContext } from '../core/engine/request-context.js';
import type { McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { ProtocolVersion } from '../core/protocol-version.js';
import type { MessageInfo } from '../core/transport.js';
import type { ClientCapabilities } from '../core/types/capabilities.js';
import type { Implementation } from '../core/types/common.js';
import type { LoggingLevel } from '../core/types/logging.js';
import type { ModernProtocolVersion } from '../core/types/modern.js';
import type { HandlerSession } from './handler-session.js';
import type { InputChannel } from './input-channel.js';
import type { ModernChannelFactory } from './modern/channel-types.js';
import type { TaskWire } from './tasks/task-wire.js';

/**
 * What a request's era may need of the server to run a handler: the factory of 2026-07-28
 * back-channels (`McpServer` has one).
 *
 * @example
 * const services: ChannelServices = { modernChannel: async (ctx) => noInputChannel(ctx.method) };
 */
export interface ChannelServices {
  readonly modernChannel: ModernChannelFactory;
}

/**
 * A handler body run by {@link HandlerRequest.run}: `channel` is the back-channel a 2026-07-28
 * request's context must use (undefined in the legacy era: the context sends nested requests).
 * The rest are the arguments {@link HandlerRequest.run} got, handed back so that a body can be
 * made once per method rather than as a closure per call (the legacy hot path allocates nothing
 * for it). `S` is the session type of the caller (this file cannot import `ServerSession`).
 *
 * @example
 * const body: HandlerBody<unknown> = (channel) => ({ content: [], structuredContent: { rounds: channel ? 1 : 0 } });
 */
export type HandlerBody<S> = (
  channel: InputChannel | undefined,
  params: JsonObject,
  ctx: RequestContext,
  session: S,
  request: HandlerRequest,
) => JsonObject | Promise<JsonObject>;

/**
 * The fourth argument of every low-level request handler: the request's client facts, as its era
 * defines them (the session's handshake in the legacy era; the request's own `_meta` in
 * 2026-07-28).
 *
 * @example
 * server.server.setRequestHandler('x/whoami', (_params, _ctx, _session, request) => ({
 *   era: request.era,
 *   version: request.protocolVersion ?? 'none',
 *   client: request.clientInfo?.name ?? 'unknown',
 * }));
 */
export interface HandlerRequest {
  /** The era that decided this request: for logs and telemetry (code should not branch on it). */
  readonly era: 'legacy' | 'modern';
  /** Legacy: negotiated at `initialize` (undefined without a handshake); 2026-07-28: from `_meta`. */
  readonly protocolVersion: ProtocolVersion | ModernProtocolVersion | undefined;
  /** Exactly what the client declared (`{}` = nothing optional). */
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /**
   * @internal Whether the request belongs to a session that lasts from one request to the next
   * (`ctx.state.session`): legacy yes (a stateless HTTP connection still has none), 2026-07-28 no.
   */
  readonly lastingSession: boolean;
  /** @internal What `ctx.session` shows: the session, or (2026-07-28) its state with this request's facts. */
  readonly session: HandlerSession;
  /**
   * @internal Whether a log message at `level` may go to the client for this request (`fallback`:
   * the server's default level).
   */
  mayLog(level: LoggingLevel, meta: JsonObject | undefined, fallback: LoggingLevel): boolean;
  /**
   * @internal True when URL elicitation carries an `elicitationId` and `complete()` sends
   * `notifications/elicitation/complete` (2026-07-28 removed both).
   */
  readonly elicitationComplete: boolean;
  /**
   * @internal The wire error a failure escaping a tool must become instead of an `isError` result,
   * or undefined to keep the result.
   */
  wireErrorFor(error: unknown): McpError | undefined;
  /**
   * @internal How tasks look in this era for this request: whether a tool call becomes one, who
   * owns it, its wire shapes and the `tasks/*` methods (tasks/task-wire.ts).
   */
  readonly tasks: TaskWire;
  /** @internal Why a back-channel call cannot reach the client at all, if that is the case. */
  readonly noBackChannelReason: string | undefined;
  /**
   * @internal The refusal of a `tools/call` whose request headers disagree with its arguments
   * (2026-07-28 over HTTP: `Mcp-Param-*`), or undefined.
   */
  checkToolHeaders(
    inputSchema: JsonObject,
    args: JsonObject,
    info: MessageInfo | undefined,
  ): McpError | undefined;
  /**
   * @internal Run a handler body with this request's back-channel: legacy, at once (synchronous
   * when the body is); 2026-07-28, under input rounds, so the answer may be an `input_required`
   * round the channel decided.
   */
  run<S>(
    ctx: RequestContext,
    params: JsonObject,
    services: ChannelServices,
    session: S,
    body: HandlerBody<S>,
  ): JsonObject | Promise<JsonObject>;
}
