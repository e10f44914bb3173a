/**
 * The half of `McpClient` that is not "call the server": connection lifecycle, the handlers for
 * server→client requests (sampling, elicitation, roots), the capabilities derived from them, and
 * notification events. `McpClient` adds the typed client→server methods on top.
 */
import { CachedResults } from './cache/cached-results.js';
import type { ClientInterceptor } from './interceptors.js';
import { ErrorCode, McpError } from '../core/errors.js';
import {
  declareExtension,
  extensionSettings,
  type Extension,
  type ExtensionMap,
} from '../core/extensions.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { CallOptions } from './call-options.js';
import type { ProtocolVersion } from '../core/protocol-version.js';
import type { Transport } from '../core/transport.js';
import type { ClientCapabilities, ServerCapabilities } from '../core/types/capabilities.js';
import type { Implementation } from '../core/types/common.js';
import type { ModernProtocolVersion } from '../core/types/modern.js';
import type { Root } from '../core/types/roots.js';
import { Client } from './client.js';
import { deriveCapabilities, wantsAppliedDefaults } from './client-capabilities.js';
import { ClientEmitter, type McpClientEventName, type McpClientListener } from './client-events.js';
import { elicitationRequestHandler, type ElicitationOptions } from './elicitation.js';
import type { ConnectOptions, McpClientOptions } from './mcp-client-options.js';
import { ToolHeaderMap } from './modern/tool-headers.js';
import { OutputSchemaCache } from './output-schemas.js';
import { checkRoots, resolveRoots, type RootsSource } from './roots.js';
import {
  samplingRequestHandler,
  toSamplingOptions,
  type SamplingHandler,
  type SamplingOptions,
} from './sampling.js';
import { bindNotifications } from './notifications.js';
import { withRelatedTask } from './tasks/related-task.js';
import { TaskSupportCache } from './tasks/task-support.js';
import { TaskTracker } from './tasks/task-tracker.js';

export type { ConnectOptions, McpClientOptions } from './mcp-client-options.js';

/**
 * Lifecycle, server→client handlers and events; extended by `McpClient`, which is what to use.
 *
 * @example
 * class MyClient extends McpClientBase { hello() { return this.lowLevel.request('hello/world'); } }
 */
export class McpClientBase {
  /** The low-level client this one drives (escape hatch for custom methods). */
  readonly lowLevel: Client;
  protected readonly events: ClientEmitter;
  protected readonly outputSchemas: OutputSchemaCache;
  /** 2026-07-28: per tool, the arguments mirrored as `Mcp-Param-*` headers (from tools/list). */
  protected readonly toolHeaders = new ToolHeaderMap();
  /** @internal The live task handles (status notifications, stopped on close). */
  protected readonly taskTracker = new TaskTracker();
  /** @internal Tools that run only as tasks (a plain callTool runs them as one). */
  protected readonly taskSupport = new TaskSupportCache();
  /** Cached 2026-07-28 list and read results (undefined: `cache: false`). */
  private readonly cache: CachedResults | undefined;
  private sampling: SamplingOptions | undefined;
  private elicitation: ElicitationOptions | undefined;
  private roots: RootsSource | undefined;
  private declared: ClientCapabilities | undefined;
  /** Extensions added with {@link McpClientBase.extend} (declared next to the options' own). */
  private added: ExtensionMap | undefined;

  constructor(
    readonly info: Implementation,
    protected readonly options: McpClientOptions = {},
  ) {
    this.lowLevel = new Client(info, {
      protocolVersion: options.protocolVersion,
      era: options.era ?? 'auto',
      discoverTimeoutMs: options.discoverTimeoutMs,
      maxInputRounds: options.maxInputRounds,
      connection: options.connection,
      renewSession: options.renewSession,
    });
    const logger = options.connection?.logger;
    this.events = new ClientEmitter((error, event) => logger?.error(`${event} listener failed`, error));
    this.outputSchemas = new OutputSchemaCache(options.outputValidator);
    this.cache = options.cache === false ? undefined : new CachedResults(options.cache ?? {});
    if (options.sampling) this.sampling = toSamplingOptions(options.sampling);
    if (options.elicitation) {
      this.elicitation = { ...options.elicitation };
      if (wantsAppliedDefaults(options.capabilities)) this.elicitation.applyDefaults ??= true;
    }
    if (options.roots)
      this.roots = typeof options.roots === 'function' ? options.roots : checkRoots(options.roots);

    this.lowLevel.setRequestHandler('sampling/createMessage', async (params, ctx) => {
      if (!this.sampling) throw methodNotFound('sampling/createMessage');
      return withRelatedTask(params, await samplingRequestHandler(this.sampling)(params, ctx));
    });
    this.lowLevel.setRequestHandler('elicitation/create', async (params, ctx) => {
      if (!this.elicitation) throw methodNotFound('elicitation/create');
      return withRelatedTask(params, await elicitationRequestHandler(this.elicitation)(params, ctx));
    });
    this.lowLevel.setRequestHandler('roots/list', (_params, ctx) => {
      if (!this.roots) throw methodNotFound('roots/list');
      return resolveRoots(this.roots, ctx);
    });
    bindNotifications(this.lowLevel, this.events, this.outputSchemas, this.cache);
    this.lowLevel.setNotificationHandler('notifications/tasks/status', (params) =>
      this.taskTracker.notify(params),
    );
    this.lowLevel.onprotocolerror = (error) => this.events.emit('protocolError', error);
    this.lowLevel.onsessionreset = (reset) => {
      // A new session may come with other tools: never validate against the old schemas.
      this.outputSchemas.clear();
      this.cache?.sessionReplaced();
      this.events.emit('sessionReset', reset);
    };
  }

  /**
   * Wrap every outbound request (tool calls, lists, reads, task requests; not the connect
   * handshake) with `interceptor`; the first registered runs outermost. See
   * {@link ClientInterceptor} and docs/interceptors.md.
   *
   * @example
   * client.use((call, next) => next({ ...call.params, _meta: { ...call.params?._meta, tenant: 'acme' } }));
   */
  use(interceptor: ClientInterceptor): this {
    this.lowLevel.use(interceptor);
    return this;
  }

  get isConnected(): boolean {
    return this.lowLevel.isConnected;
  }

  /** Settles once the connection is torn down (immediately if never connected). */
  get closed(): Promise<void> {
    return this.lowLevel.closed;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.lowLevel.serverCapabilities;
  }

  /**
   * The settings the server declared for extension `id` (SEP-2133), or undefined when it does not
   * support it (or before connect).
   *
   * @example
   * if (client.serverExtension('io.modelcontextprotocol/ui')) showAppsPanel();
   */
  serverExtension(id: string): JsonObject | undefined {
    return extensionSettings(this.lowLevel.serverCapabilities, id);
  }

  /**
   * Add an extension (SEP-2133): it is declared under `capabilities.extensions` with its settings
   * (in `initialize`, or in every 2026-07-28 request's `_meta`), then its `setup` runs with this
   * client (interceptors, event listeners). Before `connect` only: capabilities are fixed there.
   * An identifier that is malformed or already declared throws.
   *
   * @example
   * client.extend({ id: 'com.example/search', settings: { maxResults: 50 } });
   */
  extend(extension: Extension<this>): this {
    if (this.isConnected)
      throw new Error(
        `Cannot add extension ${String(extension?.id)} after connect: capabilities are fixed at connect. Add it before connecting.`,
      );
    const current: ClientCapabilities = {
      extensions: { ...this.options.capabilities?.extensions, ...this.added },
    };
    this.added = declareExtension(current, extension).extensions;
    extension.setup?.(this);
    return this;
  }

  get serverInfo(): Implementation | undefined {
    return this.lowLevel.serverInfo;
  }

  get instructions(): string | undefined {
    return this.lowLevel.instructions;
  }

  /** The negotiated revision (legacy), or `'2026-07-28'` in the modern era. */
  get protocolVersion(): ProtocolVersion | ModernProtocolVersion | undefined {
    return this.lowLevel.protocolVersion;
  }

  /** `'modern'` (2026-07-28, per-request `_meta`) or `'legacy'` (`initialize`); undefined before connect. */
  get era(): 'modern' | 'legacy' | undefined {
    return this.lowLevel.era;
  }

  /** 2026-07-28: the protocol versions the server listed in `server/discover` (legacy: undefined). */
  get serverVersions(): readonly string[] | undefined {
    return this.lowLevel.serverVersions;
  }

  /** The capabilities sent (or to be sent) in `initialize`, or in every request's `_meta` (2026-07-28). */
  get capabilities(): ClientCapabilities {
    return this.declared ?? this.deriveCapabilities();
  }

  /**
   * Connect and run the handshake. Capabilities are fixed here, from the handlers configured so far.
   *
   * @example
   * const client = new McpClient({ name: 'app', version: '1.0.0' });
   * await client.connect(transport, { timeoutMs: 10_000 });
   */
  async connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    this.declared = this.deriveCapabilities();
    this.lowLevel.capabilities = this.declared;
    this.outputSchemas.clear();
    this.toolHeaders.clear();
    this.taskSupport.clear();
    // A new connection is a new authorization context until told otherwise (`cache.partition`).
    this.cache?.sessionReplaced();
    this.cache?.connected(transport);
    await this.lowLevel.connect(transport, options);
    this.taskTracker.attach(this.lowLevel.connection);
    this.lowLevel.connection.onClose(() => this.events.emit('close', undefined));
  }

  /**
   * Send a request whose result may be cached (lists, `resources/read`): served from the cache
   * when the server's 2026-07-28 hints allow it and the call's `cache` mode agrees.
   */
  protected cached(
    method: string,
    params: JsonObject,
    options: CallOptions | undefined,
  ): Promise<JsonObject> {
    const cache = this.cache;
    if (cache === undefined || this.lowLevel.era !== 'modern')
      return this.lowLevel.request(method, params, options);
    return cache.request((m, p, o) => this.lowLevel.request(m, p, o), method, params, options);
  }

  /** Close the connection (idempotent); settles after teardown. */
  close(): Promise<void> {
    return this.lowLevel.close();
  }

  /**
   * Listen to a server notification; returns a function that removes the listener.
   *
   * @example
   * const off = client.on('resourceUpdated', ({ uri }) => void client.readResource(uri));
   */
  on<E extends McpClientEventName>(event: E, listener: McpClientListener<E>): () => void {
    return this.events.on(event, listener);
  }

  /**
   * Answer `sampling/createMessage`. Before `connect` this also declares the capability; after it,
   * only a handler for an already declared capability can be replaced.
   *
   * @example
   * client.onSampling(async ({ messages }) => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }));
   */
  onSampling(handler: SamplingHandler, options: Omit<SamplingOptions, 'handler'> = {}): void {
    this.assertCanDeclare('sampling', true);
    this.sampling = { ...options, handler };
  }

  /**
   * Answer `elicitation/create` in form and/or URL mode.
   *
   * @example
   * client.onElicitation({ form: async ({ requestedSchema }) => ({ action: 'accept', content: {} }), applyDefaults: true });
   */
  onElicitation(options: ElicitationOptions): void {
    const current = this.declared?.elicitation;
    this.assertCanDeclare('elicitation', !options.form || current?.form !== undefined);
    this.assertCanDeclare('elicitation', !options.url || current?.url !== undefined);
    this.elicitation = { ...options };
    if (wantsAppliedDefaults(this.options.capabilities)) this.elicitation.applyDefaults ??= true;
  }

  /**
   * Set the roots. When connected in the legacy era, the server is told
   * (`notifications/roots/list_changed`); in 2026-07-28 nothing is sent (the notification was
   * removed: the server asks for roots in each `input_required` round that needs them).
   *
   * @example
   * await client.setRoots([{ uri: 'file:///home/me/project', name: 'project' }]);
   */
  setRoots(roots: readonly Root[] | RootsSource): Promise<void> {
    this.assertCanDeclare('roots', true);
    this.roots = typeof roots === 'function' ? roots : checkRoots(roots);
    return this.notifyRootsChanged();
  }

  /**
   * Tell the server the roots changed (for a function {@link RootsSource}). No-op before connect,
   * and in the modern era (2026-07-28 removed the notification: the server asks for roots each time).
   */
  notifyRootsChanged(): Promise<void> {
    if (!this.isConnected || !this.declared?.roots || this.era === 'modern') return Promise.resolve();
    return this.lowLevel.notify('notifications/roots/list_changed');
  }

  private assertCanDeclare(capability: 'sampling' | 'elicitation' | 'roots', alreadyCovered: boolean): void {
    if (!this.isConnected || (this.declared?.[capability] !== undefined && alreadyCovered)) return;
    throw new Error(
      `Cannot add the ${capability} capability after connect: capabilities are fixed at connect (sent in initialize, or with every 2026-07-28 request). Configure it before connecting.`,
    );
  }

  private deriveCapabilities(): ClientCapabilities {
    const { sampling, elicitation, roots } = this;
    const derived = deriveCapabilities({ sampling, elicitation, roots }, this.options.capabilities);
    if (this.added === undefined) return derived;
    return { ...derived, extensions: { ...derived.extensions, ...this.added } };
  }
}

function methodNotFound(method: string): McpError {
  return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} (no handler configured)`);
}
