/**
 * The low-level client: the legacy-era handshake, a method → handler table for server→client
 * requests (sampling, elicitation, roots), and requests to the server. `McpClient` builds on it.
 */
import {
  Connection,
  type ConnectionOptions,
  type NotificationHandler,
  type RequestHandler,
} from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import { ErrorCode, McpError, NotConnectedError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import {
  isSupportedVersion,
  LATEST_PROTOCOL_VERSION,
  type ProtocolVersion,
} from '../core/protocol-version.js';
import type { Transport } from '../core/transport.js';
import type { Implementation } from '../server/server.js';

/**
 * @example
 * new Client({ name: 'my-app', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
 */
export interface ClientOptions {
  capabilities?: JsonObject;
  /** Version to ask for in `initialize`. Default: the latest supported. */
  protocolVersion?: ProtocolVersion;
  connection?: ConnectionOptions;
}

/**
 * The low-level MCP client.
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
  capabilities: JsonObject;
  serverCapabilities: JsonObject | undefined;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
  protocolVersion: ProtocolVersion | undefined;

  constructor(
    readonly info: Implementation,
    readonly options: ClientOptions = {},
  ) {
    this.capabilities = { ...options.capabilities };
  }

  /** The live connection; throws {@link NotConnectedError} before `connect`. */
  get connection(): Connection {
    if (!this.connectionValue) throw new NotConnectedError();
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
   * Open the connection and run the handshake. On failure (including an unsupported version from
   * the server) the connection is closed and the error rethrown.
   */
  async connect(transport: Transport, options?: Pick<RequestOptions, 'signal' | 'timeoutMs'>): Promise<void> {
    if (this.connectionValue?.isOpen) throw new Error('Client is already connected');
    // A client that goes away must not answer the server's open requests (elicitation, sampling)
    // with a -32000 error: the server would take it for the user's refusal and carry on. The
    // server learns of the end from the transport (EOF, DELETE) and aborts the handler instead.
    const connection = new Connection(transport, { answerOnClose: false, ...this.options.connection });
    this.connectionValue = connection;
    connection.fallbackRequestHandler = (params, ctx) => {
      const handler = this.handlers.get(ctx.method);
      if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${ctx.method}`);
      return handler(params, ctx);
    };
    connection.fallbackNotificationHandler = (params, info, method) =>
      this.notificationHandlers.get(method)?.(params, info, method);
    connection.setRequestHandler('ping', () => ({}));
    void connection.start();
    try {
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
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    if (!this.connectionValue) return Promise.reject(new NotConnectedError());
    return this.connectionValue.request(method, params, options);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    if (!this.connectionValue) return Promise.reject(new NotConnectedError());
    return this.connectionValue.notify(method, params);
  }

  close(): Promise<void> {
    return this.connectionValue?.close() ?? Promise.resolve();
  }
}
