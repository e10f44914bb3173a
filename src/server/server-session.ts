/**
 * One client connected to a {@link Server}: its connection, the negotiated version and the
 * client's capabilities.
 */
import { Connection, type ConnectionOptions } from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import type { RequestContext } from '../core/engine/request-context.js';
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import { negotiateVersion, type ProtocolVersion } from '../core/protocol-version.js';
import type { Transport } from '../core/transport.js';
import { methodNotFound, type Implementation, type Server } from './server.js';

/**
 * A connected client. Created by {@link Server.connect}.
 *
 * @example
 * const session = server.connect(transport);
 * session.onInitialized(() => console.error(session.clientInfo?.name));
 */
export class ServerSession {
  readonly connection: Connection;
  protocolVersion: ProtocolVersion | undefined;
  clientCapabilities: JsonObject = {};
  clientInfo: Implementation | undefined;
  /** `notifications/initialized` received. */
  initialized = false;
  /** Per-session state for higher layers (log level, subscriptions, ...). */
  readonly state = new Map<string, unknown>();
  private readonly initializedCallbacks: (() => void)[] = [];

  constructor(
    readonly server: Server,
    transport: Transport,
    options: ConnectionOptions,
  ) {
    this.connection = new Connection(transport, options);
    this.connection.setRequestHandler('initialize', (params) => this.initialize(params));
    this.connection.setRequestHandler('ping', () => ({}));
    this.connection.fallbackRequestHandler = (params, ctx) => this.dispatch(params, ctx);
    this.connection.fallbackNotificationHandler = (params, info, method) =>
      this.server.notificationHandlerFor(method)?.(params, this, info);
    this.connection.setNotificationHandler('notifications/initialized', () => {
      if (this.initialized) return;
      this.initialized = true;
      for (const callback of this.initializedCallbacks.splice(0)) callback();
    });
  }

  get sessionId(): string | undefined {
    return this.connection.sessionId;
  }

  /** Settles after teardown. */
  get closed(): Promise<void> {
    return this.connection.closed;
  }

  /** Run `callback` once the client sent `notifications/initialized`. */
  onInitialized(callback: () => void): void {
    if (this.initialized) callback();
    else this.initializedCallbacks.push(callback);
  }

  /** A server→client request not tied to any inbound request (goes on the GET stream over HTTP). */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.connection.request(method, params, options);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.connection.notify(method, params);
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  private initialize(params: JsonObject): JsonObject {
    const { protocolVersion, capabilities, clientInfo } = params;
    if (typeof protocolVersion !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'initialize: protocolVersion must be a string');
    }
    if (capabilities !== undefined && (typeof capabilities !== 'object' || capabilities === null)) {
      throw new McpError(ErrorCode.InvalidParams, 'initialize: capabilities must be an object');
    }
    this.protocolVersion = negotiateVersion(protocolVersion);
    this.clientCapabilities = (capabilities as JsonObject | undefined) ?? {};
    this.clientInfo =
      typeof clientInfo === 'object' && clientInfo !== null ? (clientInfo as Implementation) : undefined;
    const result: JsonObject = {
      protocolVersion: this.protocolVersion,
      capabilities: this.server.capabilities,
      serverInfo: this.server.info,
    };
    if (this.server.instructions !== undefined) result.instructions = this.server.instructions;
    return result;
  }

  private dispatch(params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject> {
    const handler = this.server.handlerFor(ctx.method);
    if (!handler) throw methodNotFound(ctx.method);
    return handler(params, ctx, this);
  }
}
