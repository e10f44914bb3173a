/**
 * What a 2026-07-28 request says about its client, read from its own `_meta` and nothing else: the
 * modern era is stateless, so version, capabilities, identity and log level are never taken from an
 * earlier request.
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import type { ClientCapabilities } from '../../core/types/capabilities.js';
import type { Implementation } from '../../core/types/common.js';
import { isLoggingLevel, type LoggingLevel } from '../../core/types/logging.js';
import {
  isModernVersion,
  MetaKey,
  MODERN_PROTOCOL_VERSIONS,
  type ModernProtocolVersion,
} from '../../core/types/modern.js';

/**
 * One modern request's client facts, validated.
 *
 * @example
 * server.server.setRequestHandler('x/echo', (params, _ctx, _session, modern) => ({
 *   version: modern?.protocolVersion ?? 'legacy',
 * }));
 */
export interface ModernRequest {
  readonly protocolVersion: ModernProtocolVersion;
  /** Exactly what this request declared (`{}` = nothing optional). */
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** Set only when the request asked for log messages; otherwise none are sent for it. */
  readonly logLevel: LoggingLevel | undefined;
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
 * const modern = readModernRequest({
 *   'io.modelcontextprotocol/protocolVersion': '2026-07-28',
 *   'io.modelcontextprotocol/clientCapabilities': {},
 * });
 */
export function readModernRequest(meta: unknown): ModernRequest {
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
  return {
    protocolVersion: version,
    clientCapabilities: capabilities,
    clientInfo: info as Implementation | undefined,
    logLevel: level,
  };
}
