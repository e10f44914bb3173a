/**
 * The low-level client: era detection at `connect` (a `server/discover` probe, else the legacy
 * `initialize` handshake), a method → handler table for server→client requests (sampling,
 * elicitation, roots; in 2026-07-28 the same handlers answer `input_required` rounds), and
 * requests to the server. `McpClient` builds on it.
 */
import { Connection, type NotificationHandler, type RequestHandler } from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import { ConnectionClosedError, ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import {
  isSupportedVersion,
  LATEST_PROTOCOL_VERSION,
  type ProtocolVersion,
} from '../core/protocol-version.js';
import type { Transport } from '../core/transport.js';
import type { LoggingLevel } from '../core/types/logging.js';
import type { ModernProtocolVersion } from '../core/types/modern.js';
import type { Implementation } from '../core/types/common.js';
import { chooseEra } from './modern/choose-era.js';
import { EraDetectionError, type ProtocolViolationError } from './errors.js';
import { invalidMessageReporter } from './invalid-messages.js';
import { runClientInterceptors, type ClientInterceptor } from './interceptors.js';
import { closedDuringConnect, explainClosed, notConnected } from './failure-messages.js';
import type { ClientOptions } from './client-options.js';
import type { ClientEra } from './modern/era.js';
import { DEFAULT_MAX_INPUT_ROUNDS } from './modern/input-loop.js';
import type { ModernClientFacts, ModernSession } from './modern/modern-session.js';
import { SessionRenewal, type SessionReset } from './session-renewal.js';

export type { ClientOptions } from './client-options.js';

/** A transport that can tell when the server forgot its session (Streamable HTTP). */
interface SessionWatchable {
  watchSessionExpiry(listener: (sessionId: string) => void): () => void;
}

/**
 * The low-level MCP client. Its `era` option defaults to `'legacy'` (the `initialize` handshake
 * at once), unlike `McpClient`'s `'auto'`: see {@link ClientOptions.era} for why.
 *
 * @example
 * const client = new Client({ name: 'cli', version: '1.0.0' });
 * client.setRequestHandler('roots/list', () => ({ roots: [] }));
 * await client.connect(transport);
 * const tools = await client.request('tools/list', {});
 * await client.close();
 */
export class Client {
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private connectionValue: Connection | undefined;
  private renewal: SessionRenewal | undefined;
  private modern: ModernSession | undefined;
  private interceptors: ClientInterceptor[] | undefined;
  /** Called after a new session replaced one the server had forgotten (see `renewSession`). */
  onsessionreset: ((reset: SessionReset) => void) | undefined;
  /**
   * Called once per connection when the server sends something that is not a JSON-RPC message
   * (a stdio server's `console.log` on stdout). The client ignores it and reads on; this is also
   * logged at `error` level on the connection logger (later ones at `debug`).
   */
  onprotocolerror: ((error: ProtocolViolationError) => void) | undefined;
  capabilities: JsonObject;
  serverCapabilities: JsonObject | undefined;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
  protocolVersion: ProtocolVersion | ModernProtocolVersion | undefined;
  /** The era chosen at `connect` (undefined before). */
  era: ClientEra | undefined;
  /** 2026-07-28: the versions the server listed in `server/discover` (undefined in the legacy era). */
  serverVersions: readonly string[] | undefined;
  /**
   * 2026-07-28: the `io.modelcontextprotocol/logLevel` sent on every request (undefined: no
   * logs). The legacy era uses `logging/setLevel` instead.
   */
  logLevel: LoggingLevel | undefined;

  constructor(
    readonly info: Implementation,
    readonly options: ClientOptions = {},
  ) {
    this.capabilities = { ...options.capabilities };
  }

  /** The live connection; throws {@link NotConnectedError} before `connect`. */
  get connection(): Connection {
    if (!this.connectionValue) throw notConnected('use client.connection');
    return this.connectionValue;
  }

  get isConnected(): boolean {
    return this.connectionValue?.isOpen ?? false;
  }

  /** Settles once the connection is torn down (immediately if never connected). */
  get closed(): Promise<void> {
    return this.connectionValue?.closed ?? Promise.resolve();
  }

  registerCapabilities(capabilities: JsonObject): void {
    this.capabilities = { ...this.capabilities, ...capabilities };
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.notificationHandlers.set(method, handler);
  }

  /**
   * The handler set for a server→client method (2026-07-28 tasks answer their `inputRequests`
   * with it, as the legacy era answers the server's requests).
   *
   * @example
   * const elicit = client.requestHandler('elicitation/create');
   */
  requestHandler(method: string): RequestHandler | undefined {
    return this.handlers.get(method);
  }

  /**
   * Open the connection and run the handshake. On failure (including an unsupported version from
   * the server) the connection is closed and the error rethrown.
   */
  async connect(transport: Transport, options?: Pick<RequestOptions, 'signal' | 'timeoutMs'>): Promise<void> {
    if (this.connectionValue?.isOpen) throw new Error('Client is already connected');
    // A client that goes away must not answer the server's open requests (elicitation, sampling)
    // with a -32000 error: the server would take it for the user's refusal and carry on. The
    // server learns of the end from the transport (EOF, DELETE) and aborts the handler instead.
    const connection = new Connection(transport, {
      answerOnClose: false,
      ...this.options.connection,
      onInvalidMessage: invalidMessageReporter(this.options.connection?.logger, (error) =>
        this.protocolError(error),
      ),
    });
    this.connectionValue = connection;
    connection.fallbackRequestHandler = (params, ctx) => {
      const handler = this.handlers.get(ctx.method);
      if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${ctx.method}`);
      return handler(params, ctx);
    };
    connection.fallbackNotificationHandler = (params, info, method) =>
      this.notificationHandlers.get(method)?.(params, info, method);
    connection.setRequestHandler('ping', () => ({}));
    this.renewal = undefined;
    this.modern = undefined;
    this.era = undefined;
    this.serverVersions = undefined;
    void connection.start();
    try {
      await this.chooseEra(connection, transport, options);
    } catch (error) {
      // The server went away under the handshake (a process that crashed at start, most often):
      // say that, rather than "Connection closed" or that its era is unknown.
      // (A send refused by a transport that already knows it is dead counts too.)
      const ended = !connection.closedLocally && (!connection.isOpen || !transport.writable);
      await connection.close();
      throw ended && (error instanceof ConnectionClosedError || error instanceof EraDetectionError)
        ? closedDuringConnect(error, transport.lastError)
        : explainClosed(error);
    }
    // Only a transport with sessions can lose one (Streamable HTTP); others pay nothing for this.
    if (this.era === 'legacy' && transport.sessionId !== undefined && this.options.renewSession !== false) {
      const renewal = new SessionRenewal(
        async () => {
          await this.handshake(connection, undefined);
          return transport.sessionId;
        },
        (previousSessionId, sessionId) => this.sessionRenewed({ previousSessionId, sessionId }),
        (error) => this.options.connection?.logger?.error('could not start a new session', error),
      );
      this.renewal = renewal;
      const watchable = transport as Partial<SessionWatchable>;
      if (typeof watchable.watchSessionExpiry === 'function') {
        // Out of the transport's call stack: the new initialize must not run inside its 404 path.
        const stop = watchable.watchSessionExpiry((id) => queueMicrotask(() => renewal.expired(id)));
        connection.onClose(stop);
      }
    }
  }

  /**
   * Send a request. A `ConnectionClosedError` says why in its message too (the URL and
   * `ECONNREFUSED`, a stdio server's exit code and stderr tail), not only in its `cause`.
   */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    const interceptors = this.interceptors;
    const sent =
      interceptors === undefined
        ? this.send(method, params, options)
        : runClientInterceptors(interceptors, this, method, params, options, (p, o) =>
            this.send(method, p, o),
          );
    return sent.catch((error: unknown) => {
      throw explainClosed(error);
    });
  }

  /**
   * Wrap every outbound request (not the connect handshake) with `interceptor`; the first
   * registered runs outermost. See {@link ClientInterceptor} and docs/interceptors.md.
   *
   * @example
   * client.use(async (call, next) => {
   *   const started = performance.now();
   *   try {
   *     return await next();
   *   } finally {
   *     console.error(call.method, performance.now() - started, 'ms');
   *   }
   * });
   */
  use(interceptor: ClientInterceptor): this {
    if (typeof interceptor !== 'function') throw new TypeError('client.use: an interceptor is a function');
    (this.interceptors ??= []).push(interceptor);
    return this;
  }

  /** The HTTP session id of the connection, when its transport has one. */
  get sessionId(): string | undefined {
    return this.connectionValue?.sessionId;
  }

  private send(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    const connection = this.connectionValue;
    if (!connection) {
      const name = typeof params?.name === 'string' ? ` ${JSON.stringify(params.name)}` : '';
      return Promise.reject(notConnected(`send ${method}${name}`));
    }
    if (this.modern) return this.modern.request(method, params, options);
    if (!this.renewal) return connection.request(method, params, options);
    return this.renewal.run(() => connection.request(method, params, options), options?.signal);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    if (!this.connectionValue) return Promise.reject(notConnected(`send ${method}`));
    return this.connectionValue.notify(method, params);
  }

  close(): Promise<void> {
    return this.connectionValue?.close() ?? Promise.resolve();
  }

  /** Spec (versioning, "Backward Compatibility"): see modern/choose-era.ts. */
  private async chooseEra(
    connection: Connection,
    transport: Transport,
    options: Pick<RequestOptions, 'signal' | 'timeoutMs'> | undefined,
  ): Promise<void> {
    const facts: ModernClientFacts = {
      capabilities: () => this.capabilities,
      clientInfo: this.info,
      logLevel: () => this.logLevel,
      handler: (method) => this.handlers.get(method),
      maxInputRounds: this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
    };
    const choice = await chooseEra(
      connection,
      transport,
      {
        preference: this.options.era ?? 'legacy',
        facts,
        handshake: () => this.handshake(connection, options),
        discoverTimeoutMs: this.options.discoverTimeoutMs,
      },
      options,
    );
    this.era = choice.era;
    this.serverVersions = choice.era === 'modern' ? choice.discovered.supportedVersions : undefined;
    if (choice.era === 'legacy') return;
    this.modern = choice.session;
    this.protocolVersion = choice.session.version;
    this.serverCapabilities = choice.discovered.capabilities;
    this.serverInfo = choice.discovered.serverInfo;
    this.instructions = choice.discovered.instructions;
  }

  /** `initialize` (same capabilities, client info and requested version every time), then `initialized`. */
  private async handshake(
    connection: Connection,
    options: Pick<RequestOptions, 'signal' | 'timeoutMs'> | undefined,
  ): Promise<void> {
    const result = await connection.request(
      'initialize',
      {
        protocolVersion: this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        capabilities: this.capabilities,
        clientInfo: this.info,
      },
      options,
    );
    if (!isSupportedVersion(result.protocolVersion)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Server answered with an unsupported protocol version: ${String(result.protocolVersion)}`,
      );
    }
    this.protocolVersion = result.protocolVersion;
    this.serverCapabilities = (result.capabilities as JsonObject | undefined) ?? {};
    this.serverInfo = result.serverInfo as Implementation | undefined;
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    await connection.notify('notifications/initialized');
  }

  private protocolError(error: ProtocolViolationError): void {
    try {
      this.onprotocolerror?.(error);
    } catch (hookError) {
      this.options.connection?.logger?.error('onprotocolerror failed', hookError);
    }
  }

  private sessionRenewed(reset: SessionReset): void {
    try {
      this.onsessionreset?.(reset);
    } catch (error) {
      this.options.connection?.logger?.error('onsessionreset failed', error);
    }
  }
}
