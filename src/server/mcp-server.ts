/**
 * McpServer: the high-level server. Register tools, resources, templates and prompts; it answers
 * the protocol, declares capabilities from what is registered, validates inputs and outputs, and
 * tells connected clients when lists change.
 */
import { ServerState } from './state/handler-state.js';
import type { StateOptions } from './state/state-options.js';
import type { AuthInfo } from '../core/auth.js';
import type { ConnectionOptions, Logger } from '../core/engine/connection.js';
import type { RequestContext } from '../core/engine/request-context.js';
import { declareExtension, type Extension, type ExtensionMap } from '../core/extensions.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { SchemaInput } from '../core/schema/compile-schema.js';
import type { Transport } from '../core/transport.js';
import type { ServerCapabilities } from '../core/types/capabilities.js';
import type { Implementation } from '../core/types/common.js';
import { isLoggingLevel, type LoggingLevel } from '../core/types/logging.js';
import { complete } from './completion.js';
import type { FanoutLink, FanoutMembership } from './fanout.js';
import type { HandlerFailure, ServerErrorHandler } from './handler-errors.js';
import { ListChangedNotifier, type ListKind } from './list-changed.js';
import { logParams, setLogLevel, shouldLog } from './logging.js';
import { DEFAULT_PAGE_SIZE } from './pagination.js';
import { PromptRegistry } from './prompt-registry.js';
import type { PromptArgsInput, PromptConfig, PromptHandler, RegisteredPrompt } from './prompt-types.js';
import { ResourceRegistry } from './resource-registry.js';
import { requiredScopesOf } from './required-scopes.js';
import type {
  RegisteredResource,
  RegisteredTemplate,
  ResourceConfig,
  ResourceReader,
  TemplateOptions,
  TemplateReader,
} from './resource-types.js';
import type { HandlerBody, HandlerRequest } from './handler-request.js';
import { inputRoundsFactory, type ModernChannelFactory } from './modern/back-channel.js';
import { DEFAULT_MAX_INPUT_ROUNDS } from './modern/input-rounds.js';
import type { SwallowedInputRoundError } from './modern/mrtr-errors.js';
import { RequestStateCodec, type RequestStateOptions } from './modern/request-state.js';
import { markSelfReporting } from './self-reporting.js';
import { methodNotFound, Server, type Connectable, type ServerOptions } from './server.js';
import type { ServerInterceptor } from './interceptors.js';
import type { ServerSession } from './server-session.js';
import { notifyResourceUpdated, subscribe, unsubscribe } from './subscriptions.js';
import { ToolContext } from './tool-context.js';
import { ToolRegistry } from './tool-registry.js';
import type { RegisteredTool, ToolConfig, ToolHandler } from './tool-types.js';
import { TaskManager } from './tasks/task-manager.js';
import { warnToolNameToConsole, type ToolNameWarning } from './tool-names.js';
import { callerOf, recordCaller } from './views/caller.js';
import type { RuleFailure, ViewCaller } from './views/visibility.js';
import { resolveTaskLimits, type TaskOptions } from './tasks/task-options.js';

/**
 * The options of {@link McpServer}: those of the low-level {@link Server} (`instructions`,
 * `connection`, `caching`, the subscription bounds, ...), declared once in {@link ServerOptions} and
 * passed on to it, plus what only McpServer reads (pagination, logging, derived capabilities, the
 * 2026-07-28 input rounds).
 *
 * @example
 * new McpServer({ name: 'demo', version: '1.0.0' }, { instructions: 'Use the tools', pageSize: 50 });
 */
export interface McpServerOptions extends Omit<ServerOptions, 'capabilities' | 'onerror'> {
  /** Items per page of every list method. Default 100; 0 = no pagination. */
  pageSize?: number;
  /** Minimum level of log messages for sessions that never sent `logging/setLevel`. Default `debug`. */
  defaultLogLevel?: LoggingLevel;
  /** Declare the `logging` capability (and accept `logging/setLevel`). Default true. */
  logging?: boolean;
  /** Extra capabilities to declare (`experimental`, ...), merged with the derived ones. */
  capabilities?: ServerCapabilities;
  /**
   * Handler failures (a throwing tool, resource reader, prompt, completer or custom handler),
   * reported locally with the method, request id and tool/prompt/URI; the client still gets its
   * `isError` result or error answer. Default: one line on stderr, no stack
   * ({@link logHandlerFailureToStderr}; {@link logHandlerFailureWithStack} adds the stack);
   * `undefined` = silent. Also settable later as `server.onerror`.
   */
  onerror?: ServerOptions['onerror'];
  /**
   * 2026-07-28 multi round-trip requests: the keys that sign `requestState` (several for rotation:
   * the first signs, all verify), its lifetime (`ttlMs`, default 10 minutes) and size cap
   * (`maxBytes`, default 64 KiB). Without keys each process makes a random one, so a retry must
   * reach the same process. See docs/modern-era.md.
   */
  requestState?: RequestStateOptions;
  /** Most `input_required` rounds one 2026-07-28 request may get before it fails with `-32603`. Default 8. */
  maxInputRounds?: number;
  /**
   * Told when a handler returned a value after its request was answered with `input_required` (it
   * caught the `InputRequiredSignal`); the value was discarded. Default: one `console.warn` line.
   */
  onSwallowedRound?: (error: SwallowedInputRoundError) => void;
  /**
   * Tools that run as tasks (`execution: { taskSupport }`): the store (default in memory) and the
   * bounds (TTL, poll interval, tasks per owner and in all, result size, lease). See docs/tasks.md.
   */
  tasks?: TaskOptions;
  /**
   * Told once per tool name that breaks a SHOULD of the spec's tool-name rules (SEP-986: 1-128
   * characters of `A-Z a-z 0-9 _ - .`); the tool is registered anyway. Names that cannot work
   * (empty, not a string, a lone surrogate, taken) throw instead. Default:
   * {@link warnToolNameToConsole} (one `console.warn` line); `undefined` = silent.
   */
  onToolNameWarning?: ((warning: ToolNameWarning) => void) | undefined;
  /**
   * `ctx.state`: its store (default in memory; `RedisStateStore` from `keel-mcp/redis` for several
   * processes), each scope's lifetime after its last write, and its size bounds. See docs/state.md.
   */
  state?: StateOptions;
}

/**
 * The low-level server's share of the options: all but McpServer's own, as given (so an option
 * added to {@link ServerOptions} reaches the server with no change here). `capabilities` stay
 * behind: McpServer declares them itself, merged with what is registered.
 */
function serverOptionsOf(options: McpServerOptions): ServerOptions {
  const {
    pageSize: _pageSize,
    defaultLogLevel: _defaultLogLevel,
    logging: _logging,
    capabilities: _capabilities,
    requestState: _requestState,
    maxInputRounds: _maxInputRounds,
    onSwallowedRound: _onSwallowedRound,
    tasks: _tasks,
    onToolNameWarning: _onToolNameWarning,
    state: _state,
    ...shared
  } = options;
  return shared;
}

/**
 * A method of McpServer. `caller` is the request's caller for per-caller views, made only when
 * some item has a `visibleTo` rule (undefined otherwise: the registries then never ask).
 */
type Method = (
  params: JsonObject,
  ctx: ToolContext,
  session: ServerSession,
  caller: ViewCaller | undefined,
  request: HandlerRequest,
) => JsonObject | Promise<JsonObject>;

/** Methods the eras answer themselves: {@link McpServer.method} cannot take them. */
const CORE_METHODS = new Set(['initialize', 'ping', 'server/discover', 'subscriptions/listen']);

/**
 * The high-level MCP server.
 *
 * @example
 * const server = new McpServer({ name: 'weather', version: '1.0.0' });
 * server.tool('forecast', { description: 'Forecast for a city', input: z.object({ city: z.string() }) },
 *   async ({ city }) => `Sunny in ${city}`);
 * await serveStdio(server);
 */
export class McpServer implements Connectable {
  // Not `implements ContextServices`: the members that satisfy it are @internal, so in the published
  // .d.ts (stripInternal) the clause would fail to compile. Passing `this` where it is expected
  // checks the shape.
  /** The low-level server underneath (custom methods, raw capabilities). */
  readonly server: Server;
  readonly defaultLogLevel: LoggingLevel;
  private readonly pageSize: number;
  private readonly tools: ToolRegistry;
  private readonly resources: ResourceRegistry;
  private readonly prompts: PromptRegistry;
  private readonly declared: ServerCapabilities;
  private readonly listChanged: ListChangedNotifier;
  /**
   * @internal The back-channel of each 2026-07-28 request (`ctx.elicit` & co. as `input_required`
   * rounds, see {@link inputRoundsFactory}); replaceable for tests.
   */
  modernChannel: ModernChannelFactory;
  private tasks: TaskManager | undefined;
  /** @internal `ctx.state`'s store and bounds (the store is made on first use). */
  readonly serverState: ServerState;

  constructor(
    readonly info: Implementation,
    private readonly options: McpServerOptions = {},
  ) {
    this.server = new Server(info, serverOptionsOf(options));
    const maxRounds = options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    if (!Number.isInteger(maxRounds) || maxRounds < 1)
      throw new RangeError(
        `maxInputRounds must be a positive integer, got ${String(options.maxInputRounds)}`,
      );
    this.modernChannel = inputRoundsFactory({
      codec: new RequestStateCodec(options.requestState),
      maxRounds,
      onSwallowedRound: options.onSwallowedRound,
    });
    // Checked now (a bad bound fails at construction); the manager itself is made on first use.
    if (options.tasks !== undefined) resolveTaskLimits(options.tasks);
    // A listen naming task ids reads them here (only once tasks are offered: listen-filter.ts).
    this.server.taskSource = {
      get: (id, owner) => this.taskManager.get(id, owner),
      follow: (id, onChange) => this.taskManager.follow(id, onChange),
    };
    this.serverState = new ServerState(options.state);
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.defaultLogLevel = options.defaultLogLevel ?? 'debug';
    if (!isLoggingLevel(this.defaultLogLevel))
      throw new Error(`Invalid defaultLogLevel: ${String(options.defaultLogLevel)}`);
    const notifier = new ListChangedNotifier(this.server);
    this.listChanged = notifier;
    // A `visibleTo` predicate that throws hides its item from that caller and is reported here.
    const ruleFailed: RuleFailure = (error, caller, what) =>
      this.server.reportFailure(error, {
        method: 'visibleTo',
        requestId: undefined,
        sessionId: caller.session.id,
        target: what,
      });
    const nameWarning = 'onToolNameWarning' in options ? options.onToolNameWarning : warnToolNameToConsole;
    this.tools = new ToolRegistry(notifier, ruleFailed, () => nameWarning);
    this.resources = new ResourceRegistry(notifier, ruleFailed);
    this.prompts = new PromptRegistry(notifier, ruleFailed);
    // Per-caller views reach the era's caching hints and the subscriptions through these two
    // hooks; each answers at once while no item has a rule.
    this.server.cacheHints.callerDependent = (method) => this.callerDependent(method);
    this.server.listens.uriView = (uri) => this.resources.updateView(uri);
    this.declared = { ...options.capabilities };
    if (options.logging !== false) this.declared.logging = {};
    this.syncCapabilities();
    this.installHandlers();
  }

  /** Live sessions. */
  get sessions(): ReadonlySet<ServerSession> {
    return this.server.sessions;
  }

  /**
   * Wrap every inbound request and notification (every tool call, list, read, task request, in
   * both eras, on every transport) with `interceptor`; the first registered runs outermost. See
   * {@link ServerInterceptor} and docs/interceptors.md.
   *
   * @example
   * server.use(async (call, next) => {
   *   const result = await next();
   *   audit.write({ who: call.auth?.subject, method: call.method });
   *   return result;
   * });
   */
  use(interceptor: ServerInterceptor): this {
    this.server.use(interceptor);
    return this;
  }

  /**
   * The failure hook (see {@link McpServerOptions.onerror}); settable, `undefined` = silent.
   *
   * @example
   * server.onerror = (error, { method, requestId, target }) => log.error({ method, requestId, target }, error);
   */
  get onerror(): ServerErrorHandler | undefined {
    return this.server.onerror;
  }

  set onerror(hook: ServerErrorHandler | undefined) {
    this.server.onerror = hook;
  }

  /**
   * @internal The server's tasks, made when the first one starts (a server without task tools
   * never has a store or a timer).
   */
  get taskManager(): TaskManager {
    return (this.tasks ??= new TaskManager(this.options.tasks, (error) =>
      this.server.reportFailure(error, { method: 'tasks', requestId: undefined, sessionId: '' }),
    ));
  }

  /** @internal Report a failure of user code (a context service). */
  reportFailure(error: unknown, failure: HandlerFailure): void {
    this.server.reportFailure(error, failure);
  }

  /**
   * The OAuth scopes a request needs: those its tool, resource or prompt was registered with
   * (`scopes`), for every method that names one (see `requiredScopesOf`: also completions and
   * subscriptions). A protected HTTP endpoint asks this after reading the body (see docs/auth.md).
   * Given the caller's verified token (`auth`), an item a declarative `visibleTo` hides from it
   * needs nothing here: the request goes on and is answered "not found", never a 403 that would
   * name the item's scopes.
   *
   * @example
   * server.tool('upload', { description: 'Upload', scopes: ['files:write'] }, () => 'ok');
   * server.requiredScopes('tools/call', { name: 'upload' }); // ['files:write']
   */
  requiredScopes(
    method: string,
    params: JsonObject | undefined,
    auth?: AuthInfo,
  ): readonly string[] | undefined {
    return requiredScopesOf(method, params, {
      tool: (name) => this.tools.scopes(name, auth),
      prompt: (name) => this.prompts.scopes(name, auth),
      uri: (uri) => this.resources.scopes(uri, auth),
      template: (uriTemplate) => this.resources.templateScopes(uriTemplate, auth),
    });
  }

  /**
   * Add an extension (SEP-2133): it is declared under `capabilities.extensions` (in `initialize`
   * and `server/discover`) with its settings, then its `setup` runs with this server to register
   * what it brings (methods with {@link McpServer.method}, tools, resources, interceptors).
   * Handlers ask `ctx.clientExtension(id)` whether the caller declared it. Add extensions before
   * clients connect; an identifier that is malformed or already declared throws. See
   * docs/extensions.md.
   *
   * @example
   * server.extend({
   *   id: 'com.example/echo',
   *   setup: (s) => s.method('echo/say', (params) => ({ said: params.text ?? '' })),
   * });
   */
  extend(extension: Extension<McpServer>): this {
    const declared = declareExtension(this.server.capabilities, extension);
    this.declared.extensions = declared.extensions as ExtensionMap;
    this.syncCapabilities();
    extension.setup?.(this);
    return this;
  }

  /**
   * Serve a request method of your own or of an extension, in both eras and on every transport,
   * through the interceptors, with the context tools get (`ctx.signal`, `ctx.log`, `ctx.elicit`,
   * `ctx.auth`, `ctx.clientExtension`). Return the result object; throw an `McpError` to answer
   * with an error. A method MCP or another handler already serves throws.
   *
   * @example
   * server.method('com.example/ping', async (params, ctx) => ({ pong: true, from: ctx.clientInfo?.name ?? '' }));
   */
  method(
    name: string,
    handler: (params: JsonObject, ctx: ToolContext) => JsonObject | Promise<JsonObject>,
  ): this {
    if (typeof name !== 'string' || name.length === 0 || name.startsWith('notifications/'))
      throw new TypeError(`method: a request method name, got ${JSON.stringify(name)}`);
    if (typeof handler !== 'function') throw new TypeError(`method ${name}: the handler must be a function`);
    if (this.server.handlerFor(name) !== undefined || CORE_METHODS.has(name))
      throw new Error(`method ${name} is already served`);
    this.serveWithContext(name, (params, ctx) => handler(params, ctx));
    return this;
  }

  /** The capabilities sent in `initialize` (derived from what is registered). */
  get capabilities(): ServerCapabilities {
    return this.server.capabilities;
  }

  /**
   * Register a tool. Schemas are converted and compiled now: one that cannot be converted throws.
   *
   * @example
   * server.tool('add', { description: 'Add', input: z.object({ a: z.number(), b: z.number() }), output: z.object({ sum: z.number() }) },
   *   ({ a, b }) => ({ sum: a + b }));
   */
  tool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): RegisteredTool<I, O> {
    const handle = this.tools.register(name, config, handler);
    this.syncCapabilities();
    return handle;
  }

  /**
   * Register a static resource.
   *
   * @example
   * server.resource('readme', 'file:///readme.md', { mimeType: 'text/markdown' }, () => '# Hello');
   */
  resource(name: string, uri: string, config: ResourceConfig, read: ResourceReader): RegisteredResource {
    const handle = this.resources.register(name, uri, config, read);
    this.syncCapabilities();
    return handle;
  }

  /**
   * Register a resource template (RFC 6570), with optional completers and a lister.
   *
   * @example
   * server.resourceTemplate('user', 'users://{id}', { mimeType: 'application/json' }, (uri, { id }) => JSON.stringify({ id }));
   */
  resourceTemplate(
    name: string,
    uriTemplate: string,
    config: ResourceConfig,
    read: TemplateReader,
    options?: TemplateOptions,
  ): RegisteredTemplate {
    const handle = this.resources.registerTemplate(name, uriTemplate, config, read, options);
    this.syncCapabilities();
    return handle;
  }

  /**
   * Register a prompt. `args` is a Standard Schema (validated, typed) or an argument list.
   *
   * @example
   * server.prompt('greet', { description: 'Greet someone', args: [{ name: 'who', required: true }] },
   *   ({ who }) => `Say hello to ${who}`);
   */
  prompt<A extends PromptArgsInput | undefined = undefined>(
    name: string,
    config: PromptConfig<A>,
    handler: PromptHandler<A>,
  ): RegisteredPrompt<A> {
    const handle = this.prompts.register(name, config, handler);
    this.syncCapabilities();
    return handle;
  }

  /**
   * Send `notifications/resources/updated` to the sessions subscribed to `uri` (and to the 2026-07-28
   * listens that named it), on every process after {@link McpServer.joinFanout}.
   *
   * @example
   * await server.notifyResourceUpdated('test://watched-resource');
   */
  notifyResourceUpdated(uri: string): Promise<void> {
    return notifyResourceUpdated(this.server, uri);
  }

  /**
   * Tell connected clients that a list changed when its content comes from data rather than from
   * registrations (a template's `list`, tools derived from a database): the same path as a
   * registration change, so any number of calls in one tick send one
   * `notifications/<kind>/list_changed` per session, only to sessions that were promised
   * `listChanged` for that list, and only on this process (each process lists its own data; after
   * {@link McpServer.joinFanout} call it on every process whose list changed).
   *
   * @example
   * notes.push({ id: 'b' }); // what the `notes://{id}` template's `list` returns
   * server.notifyListChanged('resources');
   */
  notifyListChanged(kind: ListKind): void {
    if (kind !== 'tools' && kind !== 'resources' && kind !== 'prompts')
      throw new TypeError(
        `notifyListChanged: "${String(kind)}" is not a list; expected 'tools', 'resources' or 'prompts'`,
      );
    this.listChanged.changed(kind);
  }

  /**
   * Join the notification fan-out of a deployment of several processes: see
   * {@link Server.joinFanout} (`notifyResourceUpdated` and `server.broadcast` reach every process;
   * registry `list_changed` stays on each).
   *
   * @example
   * const membership = server.joinFanout({ publish: (message) => relay.broadcast(message) });
   */
  joinFanout(link: FanoutLink, logger?: Logger): FanoutMembership {
    return this.server.joinFanout(link, logger);
  }

  /**
   * A log message to every session whose level lets it through (not tied to a request).
   *
   * @example
   * await server.log('warning', { disk: 'almost full' }, 'storage');
   */
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!isLoggingLevel(level)) throw new TypeError(`Invalid log level: ${String(level)}`);
    const sends: Promise<void>[] = [];
    for (const session of this.server.sessions) {
      // An era may send log messages only on the requests that asked (2026-07-28).
      if (
        session.protocolEra?.sessionLogs !== false &&
        shouldLog(level, session, undefined, this.defaultLogLevel)
      ) {
        sends.push(session.notify('notifications/message', logParams(level, data, logger)));
      }
    }
    await Promise.all(sends);
  }

  /** Serve one connection (what `serveStdio` and the HTTP handler call). */
  connect(transport: Transport, options?: ConnectionOptions): ServerSession {
    return this.server.connect(transport, options);
  }

  /**
   * Close every session. Each 2026-07-28 subscription first ends gracefully: its final
   * `subscriptions/listen` result goes out after the notifications already queued.
   */
  close(): Promise<void> {
    // Tasks outlive connections, not the server: running ones end `failed` ("shut down").
    const tasks = this.tasks;
    return Promise.all([tasks?.close(), this.server.close()]).then(() => undefined);
  }

  /**
   * End every 2026-07-28 subscription gracefully (final result; on stdio also
   * `notifications/cancelled` naming it) and keep the connections open.
   *
   * @example
   * await server.endSubscriptions(); // listeners re-listen, e.g. against the next deployment
   */
  endSubscriptions(): Promise<void> {
    return this.server.endSubscriptions();
  }

  /** True when some item has a `visibleTo` rule: requests then carry their caller. */
  private get hasViews(): boolean {
    return this.tools.hasRules || this.resources.hasRules || this.prompts.hasRules;
  }

  /** Whether a 2026-07-28 result of `method` depends on the caller (then `cacheScope: "private"`). */
  private callerDependent(method: string): boolean {
    switch (method) {
      case 'tools/list':
        return this.tools.hasRules;
      case 'prompts/list':
        return this.prompts.hasRules;
      case 'resources/list':
      case 'resources/templates/list':
      case 'resources/read':
        return this.resources.hasRules;
      default:
        return false;
    }
  }

  /**
   * The request's caller when views are in use (recorded as its session's caller: what
   * `list_changed` and resource updates of a legacy session are held to), else undefined.
   */
  private callerFor(
    ctx: ToolContext,
    session: ServerSession,
    request: HandlerRequest,
  ): ViewCaller | undefined {
    if (!this.hasViews) return undefined;
    const caller = callerOf(ctx, request.era);
    recordCaller(session, caller);
    return caller;
  }

  private syncCapabilities(): void {
    const d = this.declared;
    // An explicit `listChanged: false` in the options is kept: those sessions are never told.
    const user = this.options.capabilities ?? {};
    const listChanged = (list: 'tools' | 'resources' | 'prompts'): boolean =>
      user[list]?.listChanged !== false;
    // Capabilities only grow: a session told "tools" keeps being served even if the last tool goes.
    if (this.tools.size > 0) d.tools = { listChanged: listChanged('tools') };
    if (this.resources.size > 0) d.resources = { subscribe: true, listChanged: listChanged('resources') };
    if (this.prompts.size > 0) d.prompts = { listChanged: listChanged('prompts') };
    if (this.prompts.hasCompleters() || this.resources.hasCompleters()) d.completions = {};
    if (this.tools.offersTasks()) {
      this.server.tasksOffered = true;
      // 2025-11-25's capability (initialize); server/discover drops it for the extension.
      d.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    }
    this.server.registerCapabilities({ ...d });
  }

  /**
   * Serve `method` with `run` in a handler context: the request's era runs it with its
   * back-channel (a nested request, or input rounds). `capability`: answer -32601 while the
   * server does not declare it.
   */
  private serveWithContext(method: string, run: Method, capability?: keyof ServerCapabilities): void {
    // Made once per method: a call allocates no closure for it (see HandlerBody).
    const body: HandlerBody<ServerSession> = (channel, params, ctx, session, request) => {
      const context = new ToolContext(ctx, session, this, request, channel);
      return run(params, context, session, this.callerFor(context, session, request), request);
    };
    const handler = (
      params: JsonObject,
      ctx: RequestContext,
      session: ServerSession,
      request: HandlerRequest,
    ) => {
      if (capability !== undefined && this.server.capabilities[capability] === undefined)
        throw methodNotFound(method);
      return request.run(ctx, params, this, session, body);
    };
    this.server.setRequestHandler(method, markSelfReporting(handler));
  }

  private installHandlers(): void {
    const on = (method: string, capability: keyof ServerCapabilities, run: Method): void =>
      this.serveWithContext(method, run, capability);
    on('tools/list', 'tools', (params, _ctx, _session, caller) =>
      this.tools.list(params, this.pageSize, caller),
    );
    on('tools/call', 'tools', (params, ctx, _session, caller) => this.tools.call(params, ctx, caller));
    on('resources/list', 'resources', (params, ctx, _session, caller) =>
      this.resources.list(params, this.pageSize, ctx, caller),
    );
    on('resources/templates/list', 'resources', (params, _ctx, _session, caller) =>
      this.resources.listTemplates(params, this.pageSize, caller),
    );
    on('resources/read', 'resources', (params, ctx, _session, caller) =>
      this.resources.read(params, ctx, caller),
    );
    on('resources/subscribe', 'resources', (params, ctx, session, caller, request) => {
      // Updates are held to the subscriber's view: know its caller even before any rule exists
      // (subscribing is rare). A hidden URI is accepted as an unknown one is; its updates go only
      // to subscribers that may read it (ResourceRegistry.updateView).
      if (caller === undefined) recordCaller(session, callerOf(ctx, request.era));
      return subscribe(params, session);
    });
    on('resources/unsubscribe', 'resources', (params, _ctx, session) => unsubscribe(params, session));
    on('prompts/list', 'prompts', (params, _ctx, _session, caller) =>
      this.prompts.list(params, this.pageSize, caller),
    );
    on('prompts/get', 'prompts', (params, ctx, _session, caller) => this.prompts.get(params, ctx, caller));
    on('completion/complete', 'completions', (params, ctx, _session, caller) =>
      complete(params, this.prompts, this.resources, ctx, caller),
    );
    on('logging/setLevel', 'logging', (params, _ctx, session) => setLogLevel(params, session));
    // The era's task wire serves these (2026-07-28: get, update, cancel); -32601 without task tools.
    const task = (
      params: JsonObject,
      ctx: RequestContext,
      _session: ServerSession,
      request: HandlerRequest,
    ) => {
      if (!this.server.tasksOffered) throw methodNotFound(ctx.method);
      return request.tasks.serve(ctx.method, params, ctx, this.taskManager);
    };
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result', 'tasks/list'])
      this.server.setRequestHandler(method, markSelfReporting(task));
  }
}
