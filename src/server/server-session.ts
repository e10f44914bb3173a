/**
 * One client connected to a `Server`: its connection, the negotiated version, the client's
 * capabilities, and the state handlers keep for it (`ctx.session`). The session knows its server
 * through {@link SessionServer}, what it needs of it: server.ts creates sessions and imports this
 * file, never the other way round.
 */
import { Connection, type ConnectionOptions } from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import type { RequestContext } from '../core/engine/request-context.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { ProtocolVersion } from '../core/protocol-version.js';
import type { MessageInfo, Transport } from '../core/transport.js';
import type { ClientCapabilities, ServerCapabilities } from '../core/types/capabilities.js';
import type { Implementation } from '../core/types/common.js';
import { reportingFailures, type HandlerFailure } from './handler-errors.js';
import type { HandlerRequest } from './handler-request.js';
import type { HandlerSession } from './handler-session.js';
import type { TaskRecord } from './tasks/task-store.js';
import type { CacheHints } from './modern/caching.js';
import type { ListenHub } from './modern/subscriptions/listen-hub.js';
import { endListens } from './modern/subscriptions/listen.js';
import { isSelfReporting } from './self-reporting.js';

export type { HandlerSession } from './handler-session.js';

/**
 * A request handler of the low-level server. One table serves both eras: `request` is the
 * request as its era presents it (the client facts: the session's handshake in the legacy era,
 * the request's own `_meta` in 2026-07-28).
 *
 * @example
 * server.setRequestHandler('tools/list', () => ({ tools: [] }));
 */
export type ServerRequestHandler = (
  params: JsonObject,
  ctx: RequestContext,
  session: ServerSession,
  request: HandlerRequest,
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
 * A protocol era: everything a server does differently for one protocol revision, in one object
 * (the two are in era/: `LEGACY_ERA`, `MODERN_ERA`). The request pipeline
 * (era/request-pipeline.ts) decides a request's era once, where it enters, and hands the request to
 * that era's {@link ProtocolEra.serve}; nothing below asks again. The handler's view of a request
 * (client facts, back-channel) is the era's {@link HandlerRequest}. Declared here, beside the
 * session that keeps its era, so the eras import the session and never the other way round.
 *
 * @example
 * const era = eraOf(session, ctx); // era/request-pipeline.ts
 * return era.serve(session, params, ctx);
 */
export interface ProtocolEra {
  readonly name: 'legacy' | 'modern';
  /**
   * Serve one request of `session` in this era (which methods exist, how results and errors are
   * shaped): answer it, or throw the error to send.
   */
  serve(session: ServerSession, params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject>;
  /** Whether a client notification of `method` reaches the server's handlers on such a connection. */
  delivers(method: string): boolean;
  /** Whether connection-wide log messages (`McpServer.log`) go to such a connection. */
  readonly sessionLogs: boolean;
  /** The protocol version a request with `meta` is served in (undefined: not known yet). */
  versionOf(session: ServerSession, meta: JsonObject | undefined): string | undefined;
}

/**
 * What a session needs of the server it belongs to; the low-level `Server` is one. The handler
 * table, what the server tells clients about itself, the state its connections share, and the
 * request pipeline the session hands every request to.
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
  /** Whether a tool may run as a task (each era advertises it its way). */
  readonly tasksOffered: boolean;
  /** The server's tasks, for listens that name task ids (`McpServer` sets it). */
  readonly taskSource: TaskSource | undefined;
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
  /** Serve a request of `session`: the pipeline decides its era (era/request-pipeline.ts). */
  enter(session: ServerSession, params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject>;
  /** Whether interceptors wrap inbound messages (then notifications go through `enterNotification`). */
  readonly intercepted: boolean;
  /** Run an inbound notification through the interceptors to `deliver`. */
  enterNotification(
    session: ServerSession,
    method: string,
    params: JsonObject,
    info: MessageInfo | undefined,
    deliver: (params: JsonObject) => void | Promise<void>,
  ): Promise<void>;
}

/**
 * What a 2026-07-28 listen needs of the server's tasks to send `notifications/tasks`: the owner's
 * task (rejects when it is not theirs or does not exist), and its changes (the task manager of
 * `McpServer` is one).
 *
 * @example
 * const stop = source.follow(id, (task) => listen.deliver('notifications/tasks', detailedTask(task)));
 */
export interface TaskSource {
  get(id: string, owner: string): Promise<TaskRecord>;
  follow(id: string, onChange: (record: TaskRecord) => void): () => void;
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
   * @internal Called when what {@link snapshotOf} captures changed (handshake, initialized, log
   * level, subscriptions): a host that lets sessions move between processes saves it then.
   */
  declare onStateChange: (() => void) | undefined;
  /**
   * @internal The era this connection follows, set by the eras themselves (era/): the legacy era
   * from `initialize` on, the modern era once a 2026-07-28 request was served (then every request
   * must carry its `_meta`), undefined before either.
   */
  protocolEra: ProtocolEra | undefined;
  /**
   * @internal The legacy era's view of this session's requests, made on first use
   * (era/legacy-request.ts). `declare`: no slot until then (memory per idle HTTP session counts).
   */
  declare legacyRequest: HandlerRequest | undefined;
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
    // Two fallbacks take everything: no per-session handler Maps or closures for the built-in
    // methods (memory per idle HTTP session counts). Every request goes to the server's pipeline,
    // which decides its era. A handler set on the connection itself still comes first.
    this.connection.fallbackRequestHandler = (params, ctx) => this.server.enter(this, params, ctx);
    this.connection.fallbackNotificationHandler = (params, info, method) =>
      this.server.intercepted
        ? this.server.enterNotification(this, method, params, info, (p) => this.deliver(method, p, info))
        : this.deliver(method, params, info);
    // Registered here rather than in `Server.connect`: the closure shares this constructor's
    // context with the two above (one context per session less).
    this.connection.onClose(() => this.server.sessions.delete(this));
  }

  /**
   * The era this connection follows: `legacy` from `initialize` on, `modern` once a 2026-07-28
   * request was served (then every request must carry its `_meta`), undefined before either.
   */
  get era(): 'legacy' | 'modern' | undefined {
    return this.protocolEra?.name;
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
   * @internal `notifications/initialized`: the handshake is complete (later ones change nothing).
   * Also how an adopted session (issue 28) is marked, its handshake having happened elsewhere.
   */
  markInitialized(): void {
    if (this.initialized) return;
    this.initialized = true;
    this.onStateChange?.();
    const callbacks = this.initializedCallbacks;
    this.initializedCallbacks = undefined;
    if (callbacks) for (const callback of callbacks) callback();
  }

  /** @internal Run a handler of the shared table, reporting failures of handlers that do not. */
  run(
    handler: ServerRequestHandler,
    params: JsonObject,
    ctx: RequestContext,
    request: HandlerRequest,
  ): JsonObject | Promise<JsonObject> {
    // McpServer's own handlers report the failures of user code themselves (they know the tool,
    // and tell a bad request from a failing handler); only other handlers are wrapped here.
    if (isSelfReporting(handler)) return handler(params, ctx, this, request);
    return reportingFailures(
      () => handler(params, ctx, this, request),
      (error) => {
        // A failure after a cancel or teardown is explained by the abort; not reported.
        if (!ctx.ended)
          this.server.reportFailure(error, { method: ctx.method, requestId: ctx.id, sessionId: this.id });
      },
    );
  }

  private deliver(method: string, params: JsonObject, info: MessageInfo | undefined): void | Promise<void> {
    if (method === 'notifications/initialized') return this.markInitialized();
    // An era may have removed it (2026-07-28: roots are asked per request).
    if (this.protocolEra !== undefined && !this.protocolEra.delivers(method)) return;
    const handler = this.server.notificationHandlerFor(method);
    if (!handler) return;
    return reportingFailures(
      () => handler(params, this, info),
      (error) => this.server.reportFailure(error, { method, requestId: undefined, sessionId: this.id }),
    );
  }
}
