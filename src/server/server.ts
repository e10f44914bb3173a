/**
 * The low-level server: a method → handler table shared by every connection, plus the legacy-era
 * handshake (`initialize`, `notifications/initialized`, `ping`). The high-level `McpServer` is
 * built on it.
 */
import type { ConnectionOptions, Logger } from '../core/engine/connection.js';
import type { RequestContext } from '../core/engine/request-context.js';
import type { AuthInfo } from '../core/auth.js';
import { declareExtension, type Extension } from '../core/extensions.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { MessageInfo, Transport } from '../core/transport.js';
import type { Implementation } from '../core/types/common.js';
import {
  callErrorHook,
  logHandlerFailureToStderr,
  type HandlerFailure,
  type ServerErrorHandler,
} from './handler-errors.js';
import { CacheHints, type CachingOptions } from './modern/caching.js';
import { enterNotification, enterRequest } from './era/request-pipeline.js';
import type { ServerInterceptor } from './interceptors.js';
import {
  ServerSession,
  type ServerNotificationHandler,
  type ServerRequestHandler,
  type TaskSource,
} from './server-session.js';
import { ListenHub } from './modern/subscriptions/listen-hub.js';
import { Fanout, type FanoutLink, type FanoutMembership } from './fanout.js';
import { resourceUpdatedHere } from './subscriptions.js';

/** The connection options of a server and a `connect` that set none (shared, never written). */
const NO_OPTIONS: ConnectionOptions = Object.freeze({});

export type { Implementation } from '../core/types/common.js';
// Defined where the session imports them one way (method-not-found.ts, server-session.ts);
// exported from here too, where they were before.
export { methodNotFound } from './method-not-found.js';
export type { ServerNotificationHandler, ServerRequestHandler } from './server-session.js';

/**
 * @example
 * new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} }, instructions: 'Be nice' });
 */
export interface ServerOptions {
  capabilities?: JsonObject;
  instructions?: string | undefined;
  /** Engine options of every session (EOF drain, shutdown answers, request timeouts, logger). */
  connection?: ConnectionOptions | undefined;
  /**
   * Handler failures, reported locally (the peer still gets its error answer). Default:
   * {@link logHandlerFailureToStderr} (stderr, never stdout); `undefined` = silent.
   */
  onerror?: ServerErrorHandler | undefined;
  /** Caching hints of cacheable 2026-07-28 results (default `{ ttlMs: 0, cacheScope: 'private' }`). */
  caching?: CachingOptions | undefined;
  /**
   * Open 2026-07-28 subscriptions (`subscriptions/listen`) allowed at once, over all connections;
   * the next is refused with `-32010` (HTTP 503). Default 1,024.
   */
  maxSubscriptions?: number | undefined;
  /**
   * Open 2026-07-28 subscriptions per client: per authenticated principal when the host's
   * authentication gives one, else per connection (stdio; over HTTP without authentication every
   * request is its own connection, so only `maxSubscriptions` bounds a client there). The next is
   * refused with `-32010`. Default 16.
   */
  maxSubscriptionsPerClient?: number | undefined;
  /** URIs one `subscriptions/listen` may name in `resourceSubscriptions`; more is `-32602`. Default 1,000. */
  maxResourceSubscriptions?: number | undefined;
}

/**
 * Anything a transport host (stdio, HTTP) can attach a connection to: the low-level {@link Server}
 * and the high-level `McpServer` both are.
 *
 * @example
 * function serve(target: Connectable, transport: Transport) { return target.connect(transport).closed; }
 */
export interface Connectable {
  connect(transport: Transport, options?: ConnectionOptions): ServerSession;
  /**
   * The OAuth scopes a request needs beyond the endpoint's own (`tools/call` of a tool registered
   * with `scopes`, and so on); undefined or empty: none. A protected HTTP endpoint answers 403
   * `insufficient_scope` when the token lacks one. McpServer implements it from its registries.
   * `auth` is the verified caller: an item its per-caller view hides (`visibleTo`) needs nothing,
   * so it is answered "not found" like an item that does not exist, never with a 403 naming scopes.
   */
  requiredScopes?(
    method: string,
    params: JsonObject | undefined,
    auth?: AuthInfo,
  ): readonly string[] | undefined;
  /**
   * Join the server-wide notification fan-out of a deployment (several processes): what
   * `notifyResourceUpdated` and `Server.broadcast` raise here is also published on `link`, and
   * what the returned membership `receive`s is delivered here. The HTTP handler calls it with its
   * backplane's relay. See {@link Server.joinFanout}.
   */
  joinFanout?(link: FanoutLink, logger?: Logger): FanoutMembership;
}

/**
 * The low-level MCP server.
 *
 * @example
 * const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } });
 * server.setRequestHandler('tools/list', () => ({ tools: [] }));
 * const session = server.connect(transport);
 * await session.closed;
 */
export class Server implements Connectable {
  // Not `implements SessionServer`: the members that satisfy it are @internal, so in the published
  // .d.ts (stripInternal) the clause would fail to compile. Passing `this` where it is expected
  // checks the shape.
  private readonly handlers = new Map<string, ServerRequestHandler>();
  private readonly notificationHandlers = new Map<string, ServerNotificationHandler>();
  /** Live sessions (one per connected transport). */
  readonly sessions = new Set<ServerSession>();
  capabilities: JsonObject;
  instructions: string | undefined;
  /**
   * Called with every error a handler throws, with the method and request id (see
   * {@link ServerErrorHandler}). Settable at any time; `undefined` silences it.
   */
  onerror: ServerErrorHandler | undefined;
  /**
   * @internal True once a tool may run as a task: each era advertises it its way (2026-07-28:
   * `capabilities.extensions["io.modelcontextprotocol/tasks"]` in `server/discover`).
   */
  tasksOffered = false;
  /** @internal The server's tasks for `notifications/tasks` on a listen (set by `McpServer`). */
  taskSource: TaskSource | undefined = undefined;
  /** @internal Caching hints of modern results. */
  readonly cacheHints: CacheHints;
  /** @internal Live 2026-07-28 subscriptions (`subscriptions/listen`) of every connection. */
  readonly listens: ListenHub;
  /** @internal The other processes of the deployment (see {@link Server.joinFanout}). */
  readonly fanout: Fanout;
  /** @internal What {@link Server.use} registered, outermost first; undefined until then (no cost). */
  interceptors: ServerInterceptor[] | undefined = undefined;

  constructor(
    readonly info: Implementation,
    readonly options: ServerOptions = {},
  ) {
    this.capabilities = { ...options.capabilities };
    this.instructions = options.instructions;
    this.onerror = 'onerror' in options ? options.onerror : logHandlerFailureToStderr;
    this.cacheHints = new CacheHints(options.caching);
    this.listens = new ListenHub({
      max: options.maxSubscriptions,
      maxPerClient: options.maxSubscriptionsPerClient,
      maxUris: options.maxResourceSubscriptions,
    });
    this.fanout = new Fanout(
      (method, params) => this.deliverFromPeer(method, params),
      options.connection?.logger,
    );
  }

  /** @internal Report a handler failure to {@link Server.onerror}, once per error; never throws. */
  reportFailure(error: unknown, failure: HandlerFailure): void {
    // Once per error: a handler's failure may pass through interceptors that report what reaches
    // them (a primitive thrown value cannot be remembered; those are rare and reported again).
    if (typeof error === 'object' && error !== null) {
      const reported = (this.reported ??= new WeakSet());
      if (reported.has(error)) return;
      reported.add(error);
    }
    callErrorHook(this.onerror, error, failure);
  }

  /** Errors already handed to `onerror` (made on the first failure). */
  private reported: WeakSet<object> | undefined;

  /** Merge capabilities (before clients connect). */
  registerCapabilities(capabilities: JsonObject): void {
    this.capabilities = { ...this.capabilities, ...capabilities };
  }

  /**
   * Add an extension (SEP-2133): its identifier and settings are declared under
   * `capabilities.extensions` (in `initialize` and `server/discover`), then its `setup` runs with
   * this server (custom methods, interceptors). Add extensions before clients connect; an
   * identifier that is malformed or already declared throws.
   *
   * @example
   * server.extend({ id: 'com.example/echo', setup: (s) => s.setRequestHandler('echo/say', (params) => params) });
   */
  extend(extension: Extension<Server>): this {
    this.capabilities = declareExtension(this.capabilities, extension);
    extension.setup?.(this);
    return this;
  }

  setRequestHandler(method: string, handler: ServerRequestHandler): void {
    this.handlers.set(method, handler);
  }

  setNotificationHandler(method: string, handler: ServerNotificationHandler): void {
    this.notificationHandlers.set(method, handler);
  }

  /** @internal */
  handlerFor(method: string): ServerRequestHandler | undefined {
    return this.handlers.get(method);
  }

  /** @internal */
  notificationHandlerFor(method: string): ServerNotificationHandler | undefined {
    return this.notificationHandlers.get(method);
  }

  /**
   * Wrap every inbound request and notification of every session (both eras, every transport)
   * with `interceptor`. The first registered runs outermost; see {@link ServerInterceptor} and
   * docs/interceptors.md. Register before clients connect: a call already past this point is not
   * wrapped.
   *
   * @example
   * server.use(async (call, next) => {
   *   if (call.method === 'tools/call' && !call.auth) throw new McpError(ErrorCode.InvalidRequest, 'Sign in first');
   *   return next();
   * });
   */
  use(interceptor: ServerInterceptor): this {
    if (typeof interceptor !== 'function') throw new TypeError('server.use: an interceptor is a function');
    (this.interceptors ??= []).push(interceptor);
    return this;
  }

  /**
   * @internal Every inbound request of every session: the request pipeline decides its era, the
   * interceptors (if any) wrap it, and the era serves it (era/request-pipeline.ts).
   */
  enter(session: ServerSession, params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject> {
    return enterRequest(session, params, ctx, this.interceptors);
  }

  /** @internal True once {@link Server.use} registered an interceptor. */
  get intercepted(): boolean {
    return this.interceptors !== undefined;
  }

  /** @internal An inbound notification of `session`, through the interceptors to `deliver`. */
  enterNotification(
    session: ServerSession,
    method: string,
    params: JsonObject,
    info: MessageInfo | undefined,
    deliver: (params: JsonObject) => void | Promise<void>,
  ): Promise<void> {
    return enterNotification(session, method, params, info, this.interceptors ?? [], deliver);
  }

  /**
   * Serve one connection. Reading starts at once; `session.closed` settles (never rejects) after
   * teardown.
   */
  connect(transport: Transport, options?: ConnectionOptions): ServerSession {
    // A copy (later changes to the caller's objects do not reach live connections), except when
    // there is nothing to copy: the connection keeps it for its lifetime (memory per session).
    const defaults = this.options.connection;
    const merged = defaults || options ? { ...defaults, ...options } : NO_OPTIONS;
    const session = new ServerSession(this, transport, merged);
    // The session leaves `sessions` itself when its connection closes (see its constructor).
    this.sessions.add(session);
    // `begin`, not `start`: `closed` is made only if someone asks (memory per idle HTTP session).
    session.connection.begin();
    return session;
  }

  /**
   * Send a notification to every initialized session, and to the 2026-07-28 subscriptions whose
   * filter opted into it. A `notifications/<list>/list_changed` goes only to sessions that were
   * sent `<list>: { listChanged: true }` at `initialize`. After {@link Server.joinFanout} it also
   * reaches the sessions of every other process (once; a `notifications/resources/updated` there
   * goes to the sessions subscribed to its URI, as `notifyResourceUpdated` sends it).
   *
   * @example
   * server.broadcast('notifications/tools/list_changed');
   */
  broadcast(method: string, params?: JsonObject): void {
    void this.broadcastHere(method, params);
    void this.fanout.publish(method, params);
  }

  /**
   * @internal {@link Server.broadcast} on this process only: registry `list_changed` (every
   * process lists its own registry, so each tells its own sessions) and what a peer published.
   */
  broadcastHere(method: string, params?: JsonObject): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const session of this.sessions)
      if (session.accepts(method)) sends.push(session.notify(method, params));
    // 2026-07-28: change notifications go to the subscriptions whose filter opted into them.
    sends.push(this.listens.publish(method, params));
    return Promise.all(sends).then(() => undefined);
  }

  /**
   * Take part in the server-wide notification fan-out of a deployment of several processes
   * (issue 12). `notifyResourceUpdated(uri)` and {@link Server.broadcast} deliver here at once and
   * publish once on `link`; what another process published, passed to `receive`, is delivered
   * here only (never republished). Registry `list_changed` and per-session notifications
   * (logging, progress) stay on their process. `logger` (default: the `connection.logger`
   * option, else silent) gets publish failures (`error`: the notification reached this process
   * only) and ignored messages (`debug`: not a fan-out message, or over
   * `MAX_FANOUT_MESSAGE_BYTES`, 1 MiB). `leave()` stops both directions.
   *
   * @example
   * const relay = hub.node();
   * const membership = server.joinFanout({ publish: (message) => relay.broadcast(message) });
   * await relay.listen({ message() {}, broadcast: (_from, text) => membership.receive(text) });
   */
  joinFanout(link: FanoutLink, logger?: Logger): FanoutMembership {
    return this.fanout.join(link, logger);
  }

  /** A notification another process published: the same local delivery as its origin made. */
  private deliverFromPeer(method: string, params: JsonObject | undefined): Promise<void> {
    if (method === 'notifications/resources/updated') return resourceUpdatedHere(this, params?.uri as string);
    return this.broadcastHere(method, params);
  }

  /**
   * End every 2026-07-28 subscription gracefully (each gets its final `subscriptions/listen`
   * result); connections stay open. `close()` does this before closing.
   *
   * @example
   * await server.endSubscriptions(); // e.g. before a deploy drains the listeners
   */
  async endSubscriptions(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.endSubscriptions()));
  }

  /** Close every session (their 2026-07-28 subscriptions end gracefully first). */
  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}
