/**
 * The legacy era's {@link HandlerRequest} (2024-11-05 … 2025-11-25): the client facts are the
 * session's, from its `initialize` handshake, so one object serves every request of a session.
 * Back-channel calls are nested server→client requests; log levels come from
 * `logging/setLevel`.
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import type { McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { ProtocolVersion } from '../../core/protocol-version.js';
import type { ClientCapabilities } from '../../core/types/capabilities.js';
import type { Implementation } from '../../core/types/common.js';
import type { LoggingLevel } from '../../core/types/logging.js';
import type { ChannelServices, HandlerBody, HandlerRequest } from '../handler-request.js';
import { shouldLog } from '../logging.js';
import type { ServerSession } from '../server-session.js';
import { NO_TASK_WIRE, type TaskWire } from '../tasks/task-wire.js';
import { LegacyTaskWire } from './legacy-tasks-wire.js';

/**
 * A legacy session's requests, as their handlers see them (made once per session, on its first
 * handler call: an idle session never pays for it).
 *
 * @example
 * const request = LegacyRequest.of(session);
 * request.protocolVersion; // what initialize negotiated
 */
export class LegacyRequest implements HandlerRequest {
  // Getters, not fields: the one field keeps the object small where it is made per request
  // (stateless HTTP: one session per request).
  private constructor(private readonly serverSession: ServerSession) {}

  get era(): 'legacy' {
    return 'legacy';
  }

  get elicitationComplete(): boolean {
    return true;
  }

  get lastingSession(): boolean {
    return true;
  }

  /**
   * Tasks in the 2025-11-25 format when the session was told of them (`tasks` in its `initialize`
   * result), else none: `params.task` is then ignored, as the spec asks of a receiver without
   * the capability. Made only on task paths (a plain call never reads this).
   */
  get tasks(): TaskWire {
    const session = this.serverSession;
    const promised = session.serverCapabilities ?? session.server.capabilities;
    return promised.tasks === undefined ? NO_TASK_WIRE : new LegacyTaskWire(session);
  }

  /** The session's one object (see {@link ServerSession.legacyRequest}). */
  static of(session: ServerSession): LegacyRequest {
    return (session.legacyRequest ??= new LegacyRequest(session)) as LegacyRequest;
  }

  get protocolVersion(): ProtocolVersion | undefined {
    return this.serverSession.protocolVersion;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.serverSession.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.serverSession.clientInfo;
  }

  get session(): ServerSession {
    return this.serverSession;
  }

  mayLog(level: LoggingLevel, meta: JsonObject | undefined, fallback: LoggingLevel): boolean {
    return shouldLog(level, this.serverSession, meta, fallback);
  }

  /** A capability the tool lacked stays an `isError` result: `-32021` exists only in 2026-07-28. */
  wireErrorFor(): McpError | undefined {
    return undefined;
  }

  get noBackChannelReason(): string | undefined {
    // Stateless HTTP: each request is its own connection, without a handshake to send requests on.
    return this.serverSession.protocolVersion === undefined
      ? 'this request came without a handshake on its connection (stateless HTTP), so the server cannot send requests to the client'
      : undefined;
  }

  /** Legacy requests carry no `Mcp-Param-*` headers to check. */
  checkToolHeaders(): McpError | undefined {
    return undefined;
  }

  run<S>(
    ctx: RequestContext,
    params: JsonObject,
    _services: ChannelServices,
    session: S,
    body: HandlerBody<S>,
  ): JsonObject | Promise<JsonObject> {
    return body(undefined, params, ctx, session, this);
  }
}
