/**
 * What a 2026-07-28 request says about its client, read from its own `_meta` and nothing else: the
 * modern era is stateless, so version, capabilities, identity and log level are never taken from an
 * earlier request.
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import { ErrorCode, McpError, MissingClientCapabilityError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import type { MessageInfo } from '../../core/transport.js';
import type { ClientCapabilities } from '../../core/types/capabilities.js';
import type { Implementation } from '../../core/types/common.js';
import { isLoggingLevel, loggingLevelRank, type LoggingLevel } from '../../core/types/logging.js';
import type { ChannelServices, HandlerBody, HandlerRequest } from '../handler-request.js';
import type { HandlerSession } from '../handler-session.js';
import { checkParamHeaders, paramHeadersFor } from './param-headers.js';
import type { TaskWire } from '../tasks/task-wire.js';
import { modernTaskWire } from './tasks-wire.js';
import {
  isModernVersion,
  MetaKey,
  MODERN_PROTOCOL_VERSIONS,
  type ModernProtocolVersion,
} from '../../core/types/modern.js';

/**
 * One 2026-07-28 request as its handler sees it: the client facts its `_meta` declared, validated
 * (see {@link readModernRequest}), and the era's rules: log messages only at the level the request
 * asked for, back-channel calls as `input_required` rounds, `-32021` for a capability it lacked.
 *
 * @example
 * server.server.setRequestHandler('x/echo', (params, _ctx, _session, request) => ({
 *   version: request.protocolVersion ?? 'legacy',
 * }));
 */
export class ModernRequest implements HandlerRequest {
  readonly era = 'modern' as const;
  /** @internal */
  readonly elicitationComplete = false;
  /** @internal */
  readonly lastingSession = false;
  /** @internal */
  readonly noBackChannelReason = undefined;
  private view: HandlerSession | undefined;
  private taskWire: TaskWire | undefined;

  /** @internal Made by {@link readModernRequest}. */
  constructor(
    private readonly connection: HandlerSession,
    readonly protocolVersion: ModernProtocolVersion,
    /** Exactly what this request declared (`{}` = nothing optional). */
    readonly clientCapabilities: ClientCapabilities,
    readonly clientInfo: Implementation | undefined,
    /** Set only when the request asked for log messages; otherwise none are sent for it. */
    readonly logLevel: LoggingLevel | undefined,
  ) {}

  /** @internal The session's id and state, with this request's facts (never an earlier request's). */
  get session(): HandlerSession {
    if (this.view) return this.view;
    const connection = this.connection;
    this.view = {
      // Read on demand: a stateless connection's id is a random UUID made on first use, which
      // a handler that only wants the version must not pay for.
      get id() {
        return connection.id;
      },
      clientInfo: this.clientInfo,
      clientCapabilities: this.clientCapabilities,
      protocolVersion: this.protocolVersion,
      get state() {
        return connection.state;
      },
    };
    return this.view;
  }

  /** @internal The tasks extension as this request negotiated it (modern/tasks-wire.ts). */
  get tasks(): TaskWire {
    return (this.taskWire ??= modernTaskWire(this.clientCapabilities));
  }

  /** @internal Only requests that set a level get log messages (the spec: MUST NOT otherwise). */
  mayLog(level: LoggingLevel): boolean {
    return this.logLevel !== undefined && loggingLevelRank(level) >= loggingLevelRank(this.logLevel);
  }

  /** @internal `-32021` for a capability the request lacked. */
  wireErrorFor(error: unknown): McpError | undefined {
    return error instanceof MissingClientCapabilityError ? error.toMcpError() : undefined;
  }

  /**
   * @internal Over HTTP the `Mcp-Param-*` headers must mirror the annotated arguments. Headers are read only
   * for a tool that has such arguments: over HTTP reading them builds a web `Headers` from the raw
   * ones, which was ~5 % of a modern echo's server CPU.
   */
  checkToolHeaders(
    inputSchema: JsonObject,
    args: JsonObject,
    info: MessageInfo | undefined,
  ): McpError | undefined {
    if (paramHeadersFor(inputSchema).length === 0) return undefined;
    const headers = info?.headers;
    return headers ? checkParamHeaders(inputSchema, args, headers) : undefined;
  }

  /**
   * @internal The request's channel runs the body and decides the answer: its value, or an `input_required`
   * round as soon as the body asked for input it does not have (its signal then aborts and what
   * it does afterwards is discarded; see back-channel.ts for why it is not waited for).
   */
  async run<S>(
    ctx: RequestContext,
    params: JsonObject,
    services: ChannelServices,
    session: S,
    body: HandlerBody<S>,
  ): Promise<JsonObject> {
    const channel = await services.modernChannel(ctx, params);
    const outcome = await channel.run(() => body(channel, params, ctx, session, this));
    return outcome.type === 'complete' ? outcome.value : outcome.result;
  }
}

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function missing(key: string): McpError {
  return invalid(`Missing required _meta key "${key}" (2026-07-28 requests carry it on every request)`);
}

/**
 * The `-32022` error for a version this server does not serve per request; `data.supported` lists
 * the versions a client may retry with.
 *
 * @example
 * throw unsupportedVersion('1900-01-01'); // { code: -32022, data: { supported: ['2026-07-28'], requested: '1900-01-01' } }
 */
export function unsupportedVersion(requested: string): McpError {
  return new McpError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
    supported: [...MODERN_PROTOCOL_VERSIONS],
    requested,
  });
}

/**
 * True when a request carries a required modern `_meta` key (the version, or the capabilities of
 * a client that forgot the version: a malformed modern request, not a legacy one). Legacy requests
 * rarely have `_meta` at all, so the hot path usually pays one `undefined` check.
 *
 * @example
 * isModernMeta({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }); // true
 * isModernMeta({ progressToken: 1 }); // false
 */
export function isModernMeta(meta: JsonObject | undefined): boolean {
  return (
    meta !== undefined &&
    meta !== null &&
    (meta[MetaKey.ProtocolVersion] !== undefined || meta[MetaKey.ClientCapabilities] !== undefined)
  );
}

/**
 * Read and validate a modern request's `_meta`: `-32602` for a missing or malformed key, `-32022`
 * for a version not served. The version is checked first: it decides how the rest is read.
 *
 * @example
 * const request = readModernRequest(
 *   { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
 *   session,
 * );
 */
export function readModernRequest(meta: unknown, session: HandlerSession): ModernRequest {
  if (!isJsonObject(meta)) throw missing(MetaKey.ProtocolVersion);
  const version = meta[MetaKey.ProtocolVersion];
  if (version === undefined) throw missing(MetaKey.ProtocolVersion);
  if (typeof version !== 'string') throw invalid(`_meta "${MetaKey.ProtocolVersion}" must be a string`);
  if (!isModernVersion(version)) throw unsupportedVersion(version);
  const capabilities = meta[MetaKey.ClientCapabilities];
  if (capabilities === undefined) throw missing(MetaKey.ClientCapabilities);
  if (!isJsonObject(capabilities)) throw invalid(`_meta "${MetaKey.ClientCapabilities}" must be an object`);
  const info = meta[MetaKey.ClientInfo];
  if (
    info !== undefined &&
    !(isJsonObject(info) && typeof info.name === 'string' && typeof info.version === 'string')
  ) {
    throw invalid(`_meta "${MetaKey.ClientInfo}" must be an object with string name and version`);
  }
  const level = meta[MetaKey.LogLevel];
  if (level !== undefined && !isLoggingLevel(level)) {
    throw invalid(`_meta "${MetaKey.LogLevel}" is not a logging level: ${JSON.stringify(level)}`);
  }
  return new ModernRequest(session, version, capabilities, info as Implementation | undefined, level);
}
