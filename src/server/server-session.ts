/**
 * One client connected to a `Server`: its connection, the negotiated version, the client's
 * capabilities, and the state handlers keep for it (`ctx.session`). The session knows its server
 * through {@link SessionServer}, what it needs of it: server.ts creates sessions and imports this
 * file, never the other way round.
 */
import { Connection, type ConnectionOptions } from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import type { RequestContext } from '../core/engine/request-context.js';
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import { negotiateVersion, type ProtocolVersion } from '../core/protocol-version.js';
import type { MessageInfo, Transport } from '../core/transport.js';
import type { ClientCapabilities, ServerCapabilities } from '../core/types/capabilities.js';
import type { ModernProtocolVersion } from '../core/types/modern.js';
import type { Implementation } from '../core/types/common.js';
import { reportingFailures, type HandlerFailure } from './handler-errors.js';
import { methodNotFound } from './method-not-found.js';
import type { CacheHints } from './modern/caching.js';
import { isModernMeta, type ModernRequest } from './modern/modern-request.js';
import type { ListenHub } from './modern/subscriptions/listen-hub.js';
import { endListens } from './modern/subscriptions/listen.js';
import { isSelfReporting } from './self-reporting.js';

/**
 * A request handler of the low-level server. One table serves both eras: `modern` is set for a
 * 2026-07-28 request (its client facts, read from its own `_meta`), undefined in the legacy era.
 *
 * @example
 * server.setRequestHandler('tools/list', () => ({ tools: [] }));
 */
export type ServerRequestHandler = (
  params: JsonObject,
  ctx: RequestContext,
  session: ServerSession,
  modern?: ModernRequest,
) => JsonObject | Promise<JsonObject>;

/**
 * @example
 * server.setNotificationHandler('notifications/roots/list_changed', (_p, session) => refresh(session));
 */
export type ServerNotificationHandler = (
  params: JsonObject,
  session: ServerSession,
  info: MessageInfo | undefined,
) => void | Promise<void>;

/**
 * What a session needs of the server it belongs to; the low-level `Server` is one. The handler
 * table, what the server tells clients about itself, the state its connections share, and the
 * 2026-07-28 pipeline the session hands modern requests to.
 *
 * @example
 * const server: SessionServer = new Server({ name: 'demo', version: '1.0.0' });
 * server.handlerFor('tools/list'); // the handler of the shared table, or undefined
 */
export interface SessionServer {
  readonly info: Implementation;
  /** What `initialize` and `server/discover` declare (`registerCapabilities` replaces the object). */
  readonly capabilities: JsonObject;
  readonly instructions: string | undefined;
  /** Live sessions; a session leaves it when its connection closes. */
  readonly sessions: Set<ServerSession>;
  /** Live 2026-07-28 subscriptions (`subscriptions/listen`) of every connection. */
  readonly listens: ListenHub;
  /** Caching hints of complete 2026-07-28 results. */
  readonly cacheHints: CacheHints;
  handlerFor(method: string): ServerRequestHandler | undefined;
  notificationHandlerFor(method: string): ServerNotificationHandler | undefined;
  /** Report a handler failure to the server's `onerror`; never throws. */
  reportFailure(error: unknown, failure: HandlerFailure): void;
  /** Serve a 2026-07-28 request of `session` (the session decides only that it is one). */
  dispatchModern(session: ServerSession, params: JsonObject, ctx: RequestContext): Promise<JsonObject>;
}

/**
 * What a handler sees of its session (`ctx.session` in `McpServer` handlers; the low-level
 * handlers get the whole {@link ServerSession}). The same object for every request of a session.
 *
 * @example
 * server.tool('count', { description: 'Counts calls in this session' }, (_a, ctx) => {
 *   const calls = ((ctx.session.state.get('calls') as number | undefined) ?? 0) + 1;
 *   ctx.session.state.set('calls', calls);
 *   return `${ctx.session.clientInfo?.name ?? 'client'} called ${calls} times (session ${ctx.session.id})`;
 * });
 */
export interface HandlerSession {
  /** The HTTP session id; on stdio, memory and stateless HTTP, an id the server generated. */
  readonly id: string;
  /** `clientInfo` from `initialize` (undefined before it, or without a handshake). */
  readonly clientInfo: Implementation | undefined;
  /** The capabilities the client declared in `initialize` (`{}` before it). */
  readonly clientCapabilities: ClientCapabilities;
  /**
   * The negotiated protocol version (undefined before `initialize`, or without a handshake); for a
   * 2026-07-28 request, the version its `_meta` names.
   */
  readonly protocolVersion: ProtocolVersion | ModernProtocolVersion | undefined;
  /** Yours: lives exactly as long as the session, and is dropped with it. */
  readonly state: Map<string, unknown>;
}

const LIST_CHANGED = new Map<string, 'tools' | 'resources' | 'prompts'>([
  ['notifications/tools/list_changed', 'tools'],
  ['notifications/resources/list_changed', 'resources'],
  ['notifications/prompts/list_changed', 'prompts'],
]);

/**
 * A connected client. Created by `Server.connect`.
 *
 * @example
 * const session = server.connect(transport);
 * session.onInitialized(() => console.error(session.clientInfo?.name));
 */
export class ServerSession implements HandlerSession {
  readonly connection: Connection;
  protocolVersion: ProtocolVersion | undefined;
  clientCapabilities: ClientCapabilities = {};
  clientInfo: Implementation | undefined;
  /** The server capabilities this client was sent in `initialize` (what it was promised). */
  serverCapabilities: ServerCapabilities | undefined;
  /** `notifications/initialized` received. */
  initialized = false;
  /**
   * The era this connection follows: `legacy` from `initialize` on, `modern` once a 2026-07-28
   * request was served (then every request must carry its `_meta`), undefined before either.
   */
  era: 'legacy' | 'modern' | undefined;
  // Created on first use: most sessions never need them (memory per idle HTTP session counts).
  private initializedCallbacks: (() => void)[] | undefined;
  private internalState: Map<string, unknown> | undefined;
  private userState: Map<string, unknown> | undefined;
  private generatedId: string | undefined;

  constructor(
    readonly server: SessionServer,
    transport: Transport,
    options: ConnectionOptions,
  ) {
    this.connection = new Connection(transport, options);
    // Two fallbacks route everything (see `route`): no per-session handler Maps or closures for
    // the built-in methods (memory per idle HTTP session counts). A handler set on the connection
    // itself still comes first.
    this.connection.fallbackRequestHandler = (params, ctx) => this.route(params, ctx);
    this.connection.fallbackNotificationHandler = (params, info, method) =>
      method === 'notifications/initialized'
        ? this.markInitialized()
        : this.notification(method, params, info);
    // Registered here rather than in `Server.connect`: the closure shares this constructor's
    // context with the two above (one context per session less).
    this.connection.onClose(() => this.server.sessions.delete(this));
  }

  /** The HTTP session id, when the transport has one. */
  get sessionId(): string | undefined {
    return this.connection.sessionId;
  }

  /** The HTTP session id, or (stdio, memory, stateless HTTP) a random id generated on first use. */
  get id(): string {
    return this.connection.sessionId ?? (this.generatedId ??= crypto.randomUUID());
  }

  /** @internal Keel's own per-session state (log level, subscriptions), apart from users' `state`. */
  get internal(): Map<string, unknown> {
    return (this.internalState ??= new Map());
  }

  /** Per-session state for handlers: one Map per session, dropped with it. */
  get state(): Map<string, unknown> {
    return (this.userState ??= new Map());
  }

  /**
   * True when this session was told, in the capabilities it received at `initialize`, that the
   * `list` can change (`listChanged: true`): only then may `notifications/<list>/list_changed` go
   * to it.
   */
  mayNotifyListChanged(list: 'tools' | 'resources' | 'prompts'): boolean {
    const declared = this.serverCapabilities?.[list] as { listChanged?: unknown } | undefined;
    return declared?.listChanged === true;
  }

  /** Whether a broadcast of `method` may reach this session (initialized; list_changed promised). */
  accepts(method: string): boolean {
    if (!this.initialized) return false;
    const list = LIST_CHANGED.get(method);
    return list === undefined || this.mayNotifyListChanged(list);
  }

  /** Settles after teardown. */
  get closed(): Promise<void> {
    return this.connection.closed;
  }

  /** Run `callback` once the client sent `notifications/initialized`. */
  onInitialized(callback: () => void): void {
    if (this.initialized) callback();
    else if (this.initializedCallbacks) this.initializedCallbacks.push(callback);
    // A literal, not `push`: a first push reserves room for 17 (memory per idle session).
    else this.initializedCallbacks = [callback];
  }

  /** A server→client request not tied to any inbound request (goes on the GET stream over HTTP). */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.connection.request(method, params, options);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.connection.notify(method, params);
  }

  /**
   * Close the connection. Its 2026-07-28 subscriptions end gracefully first: each gets its final
   * result, after the notifications already queued (see {@link endSubscriptions}).
   */
  close(): Promise<void> {
    const listens = this.server.listens.size === 0 ? [] : this.server.listens.of(this.connection);
    if (listens.length === 0 || !this.connection.isOpen) return this.connection.close();
    return endListens(this.connection, listens).then(() => this.connection.close());
  }

  /**
   * End this connection's 2026-07-28 subscriptions gracefully (the final `subscriptions/listen`
   * result; on stdio also `notifications/cancelled` naming each); the connection stays open.
   */
  endSubscriptions(): Promise<void> {
    return endListens(this.connection, this.server.listens.of(this.connection));
  }

  /**
   * Every inbound request. `initialize` and `ping` of a legacy request are answered here; a
   * modern request for a method 2026-07-28 removed goes down the modern path (-32601); a plain
   * `initialize` chooses the legacy era for this connection, even after modern requests (they left
   * no state behind: a stdio server follows its client). A second successful `initialize` is
   * refused (-32600).
   */
  private route(params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject> {
    switch (ctx.method) {
      case 'initialize':
        return isModernMeta(ctx.meta)
          ? this.server.dispatchModern(this, params, ctx)
          : this.initialize(params);
      case 'ping':
        return isModernMeta(ctx.meta) ? this.server.dispatchModern(this, params, ctx) : {};
      case 'server/discover':
        // 2026-07-28 only: without _meta it is a malformed modern request (-32602), except on a
        // legacy connection, which answers it as before (-32601).
        return this.era === 'legacy' && !isModernMeta(ctx.meta)
          ? this.dispatch(params, ctx)
          : this.server.dispatchModern(this, params, ctx);
      case 'subscriptions/listen':
        // 2026-07-28 only; a legacy connection answers it as before (-32601, or a user's handler).
        return this.listen(params, ctx);
      default:
        return this.dispatch(params, ctx);
    }
  }

  /** `notifications/initialized`: the handshake is complete (later ones change nothing). */
  private markInitialized(): void {
    if (this.initialized) return;
    this.initialized = true;
    const callbacks = this.initializedCallbacks;
    this.initializedCallbacks = undefined;
    if (callbacks) for (const callback of callbacks) callback();
  }

  private listen(params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject> {
    const answer = this.dispatch(params, ctx);
    // The engine chains the answer's write on this promise; a graceful end waits behind it.
    const listen = this.server.listens.find(this.connection, ctx.id);
    if (listen !== undefined && listen.answer === undefined) listen.answer = Promise.resolve(answer);
    return answer;
  }

  private initialize(params: JsonObject): JsonObject {
    // One handshake per connection, as over HTTP (handle-post.ts answers a session's second one
    // the same way): renegotiating would change the version and capabilities under running code.
    // A handshake that failed (bad params) set nothing, so the client may try again.
    if (this.protocolVersion !== undefined)
      throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: Server already initialized');
    const { protocolVersion, capabilities, clientInfo } = params;
    if (typeof protocolVersion !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'initialize: protocolVersion must be a string');
    }
    if (capabilities !== undefined && (typeof capabilities !== 'object' || capabilities === null)) {
      throw new McpError(ErrorCode.InvalidParams, 'initialize: capabilities must be an object');
    }
    this.protocolVersion = negotiateVersion(protocolVersion);
    this.era = 'legacy';
    this.clientCapabilities = (capabilities as ClientCapabilities | undefined) ?? {};
    this.clientInfo =
      typeof clientInfo === 'object' && clientInfo !== null ? (clientInfo as Implementation) : undefined;
    // `registerCapabilities` replaces the object, so this reference keeps what was promised.
    this.serverCapabilities = this.server.capabilities;
    const result: JsonObject = {
      protocolVersion: this.protocolVersion,
      capabilities: this.server.capabilities,
      serverInfo: this.server.info,
    };
    if (this.server.instructions !== undefined) result.instructions = this.server.instructions;
    return result;
  }

  private dispatch(params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject> {
    // The era check of the legacy hot path: one property read on `_meta` (usually absent).
    if (this.era === 'modern' || isModernMeta(ctx.meta)) return this.server.dispatchModern(this, params, ctx);
    const handler = this.server.handlerFor(ctx.method);
    if (!handler) throw methodNotFound(ctx.method);
    return this.run(handler, params, ctx, undefined);
  }

  /** @internal Run a handler of the shared table, reporting failures of handlers that do not. */
  run(
    handler: ServerRequestHandler,
    params: JsonObject,
    ctx: RequestContext,
    modern: ModernRequest | undefined,
  ): JsonObject | Promise<JsonObject> {
    // McpServer's own handlers report the failures of user code themselves (they know the tool,
    // and tell a bad request from a failing handler); only other handlers are wrapped here.
    if (isSelfReporting(handler)) return handler(params, ctx, this, modern);
    return reportingFailures(
      () => handler(params, ctx, this, modern),
      (error) => {
        // A failure after a cancel or teardown is explained by the abort; not reported.
        if (!ctx.ended)
          this.server.reportFailure(error, { method: ctx.method, requestId: ctx.id, sessionId: this.id });
      },
    );
  }

  private notification(
    method: string,
    params: JsonObject,
    info: MessageInfo | undefined,
  ): void | Promise<void> {
    // 2026-07-28 removed it (roots are asked per request): not passed to handlers of a modern connection.
    if (this.era === 'modern' && method === 'notifications/roots/list_changed') return;
    const handler = this.server.notificationHandlerFor(method);
    if (!handler) return;
    return reportingFailures(
      () => handler(params, this, info),
      (error) => this.server.reportFailure(error, { method, requestId: undefined, sessionId: this.id }),
    );
  }
}
