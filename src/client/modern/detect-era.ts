/**
 * The `server/discover` probe (spec: versioning and the stdio and HTTP "Backward Compatibility"
 * sections). A `DiscoverResult` or a recognised 2026-07-28 error means a modern server. A legacy
 * server is recognised by what legacy servers say: any other JSON-RPC error (never keyed on one
 * code), a result that is not a `DiscoverResult`, an HTTP 4xx without a modern body, and, where
 * silence is how a legacy server answers (stdio), no answer within the probe timeout. Anything
 * else (HTTP 5xx, 401/403, a network error, no answer over HTTP, the connection closing) says
 * nothing about the era: the probe fails with {@link EraDetectionError}, or with the
 * `AuthorizationError` when the client's OAuth flow is what failed. (`Client.connect` turns the
 * one made of a closed connection into a `ConnectionClosedError` saying the server went away.)
 */
import type { Connection } from '../../core/engine/connection.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import {
  ConnectionClosedError,
  ErrorCode,
  KeelError,
  McpError,
  RequestAbortedError,
  RequestTimeoutError,
} from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../core/protocol-version.js';
import { MODERN_PROTOCOL_VERSIONS, type ModernProtocolVersion } from '../../core/types/modern.js';
import { HttpTransportError } from '../../core/http-errors.js';
import { AuthorizationError } from '../auth/errors.js';
import { EraDetectionError, NoSharedVersionError } from '../errors.js';
import {
  isRecognisedModernError,
  parseDiscoverResult,
  sharedVersion,
  supportedList,
  type Discovered,
} from './era.js';

/**
 * How long the probe waits for an answer before taking the server for a legacy one that ignores
 * requests sent before `initialize` (stdio and other transports without a `serverKey`). Long
 * enough for a loaded machine to answer a request that does no work; short because a silent
 * legacy stdio server costs this on every connect. Over HTTP every request gets an answer, so
 * silence is no legacy signal there: the probe waits as long as `connect`'s `timeoutMs` allows.
 *
 * @example
 * new McpClient(info, { discoverTimeoutMs: DEFAULT_DISCOVER_TIMEOUT_MS * 2 });
 */
export const DEFAULT_DISCOVER_TIMEOUT_MS = 5_000;

/**
 * What the probe found.
 *
 * @example
 * const outcome: ProbeOutcome = { era: 'legacy', reason: new Error('Method not found') };
 */
export type ProbeOutcome =
  | { era: 'modern'; version: ModernProtocolVersion; discovered: Discovered }
  | { era: 'legacy'; reason: unknown };

/**
 * How {@link probeEra} sends and judges the probe.
 *
 * @example
 * const options: ProbeOptions = { timeoutMs: 5_000, http: false };
 */
export interface ProbeOptions extends Pick<RequestOptions, 'signal' | 'timeoutMs'> {
  /**
   * True over HTTP (a transport with a `serverKey`): only a 4xx (or a JSON-RPC error answer) is a
   * legacy signal; silence and 5xx are failures. False on stdio-like transports, where a legacy
   * server may stay silent until `initialize`.
   */
  http: boolean;
}

const CLIENT_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/** The HTTP status behind a failed request (the transport's error is the cause of the engine's). */
function httpStatusOf(error: unknown): number | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof HttpTransportError) return e.status;
  }
  return undefined;
}

/**
 * True when a failed probe says the server is legacy; false when the failure says nothing about
 * the era. Only called for failures that are not a recognised modern error.
 */
function isLegacySignal(error: unknown, http: boolean): boolean {
  if (error instanceof McpError) {
    // Keel's "busy, retry later" (HTTP 503) and "over your quota" (HTTP 429) are states of the
    // server, not its era.
    return !(http && (error.code === ErrorCode.ServerBusy || error.code === ErrorCode.QuotaExceeded));
  }
  if (error instanceof RequestTimeoutError) return !http;
  const status = httpStatusOf(error);
  // 401/403 are about the caller's credentials, which both eras check before the method.
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
}

/** The OAuth failure behind a failed probe, if that is what it was (the engine wraps it). */
function authorizationFailure(error: unknown): AuthorizationError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof AuthorizationError) return e;
  }
  return undefined;
}

/**
 * What failed, for the message: "Could not send the request" says little, while the transport's
 * own error under it names the URL and `ECONNREFUSED`, or the command and exit code of a stdio
 * server; the error below those (undici's "fetch failed") says less again. So: the first error
 * under the engine's `ConnectionClosedError` wrappers.
 */
function whatFailed(error: unknown): unknown {
  let e = error;
  for (let depth = 0; e instanceof ConnectionClosedError && e.cause instanceof Error && depth < 5; depth++) {
    e = e.cause;
  }
  return e;
}

function failure(error: unknown): EraDetectionError {
  const status = httpStatusOf(error);
  const root = whatFailed(error);
  const what =
    status === 401
      ? `HTTP 401: the server requires authorization; give the HTTP transport an \`auth\` provider (docs/auth-client.md)`
      : status !== undefined
        ? `HTTP ${status}`
        : root instanceof KeelError || (root instanceof Error && root.name === 'Error')
          ? root.message
          : root instanceof Error
            ? `${root.name}: ${root.message}`
            : String(root);
  // The reason goes last: it may run over several lines (a stdio server's stderr tail).
  return new EraDetectionError(
    `server/discover failed, so the server's era is unknown (nothing was cached; the next connect probes again): ${what}`,
    { cause: error },
  );
}

/**
 * Send `server/discover` (with `meta(version)` as its `_meta`) and classify the answer. A
 * `-32022` naming a modern version we share is retried once with it; one naming only a handshake
 * revision we share sends the client to `initialize`. No shared version at all
 * throws {@link NoSharedVersionError}; a failure that is no era signal throws
 * {@link EraDetectionError}; the caller's abort rethrows.
 *
 * @example
 * const outcome = await probeEra(connection, (v) => modernMeta({ ...facts, protocolVersion: v }), { timeoutMs: 5_000, http: false });
 */
export async function probeEra(
  connection: Connection,
  meta: (version: string) => JsonObject,
  options: ProbeOptions,
): Promise<ProbeOutcome> {
  const { http, ...requestOptions } = options;
  let version: ModernProtocolVersion = MODERN_PROTOCOL_VERSIONS[0];
  for (let attempt = 0; ; attempt++) {
    let result: JsonObject;
    try {
      result = await connection.request('server/discover', { _meta: meta(version) }, requestOptions);
    } catch (error) {
      if (error instanceof RequestAbortedError) throw error;
      if (!isRecognisedModernError(error)) {
        const refused = authorizationFailure(error);
        if (refused) throw refused;
        if (isLegacySignal(error, http)) return { era: 'legacy', reason: error };
        throw failure(error);
      }
      if (error.code !== ErrorCode.UnsupportedProtocolVersion) throw error;
      const supported = supportedList(error.data as JsonObject) ?? [];
      const shared = sharedVersion(supported);
      if (shared === undefined) throw new NoSharedVersionError(supported, CLIENT_VERSIONS, { cause: error });
      // Only handshake revisions in common: `initialize` negotiates one of them.
      if ('legacy' in shared) return { era: 'legacy', reason: error };
      // The same version refused twice: the server contradicts itself; say so rather than loop.
      if (attempt > 0) throw error;
      version = shared.modern;
      continue;
    }
    const discovered = parseDiscoverResult(result);
    if (!discovered) {
      const reason = new McpError(
        ErrorCode.InvalidRequest,
        'server/discover answered with no DiscoverResult',
      );
      return { era: 'legacy', reason };
    }
    const shared = sharedVersion(discovered.supportedVersions);
    if (shared === undefined) throw new NoSharedVersionError(discovered.supportedVersions, CLIENT_VERSIONS);
    if ('legacy' in shared) return { era: 'legacy', reason: 'no modern version in common' };
    return { era: 'modern', version: shared.modern, discovered };
  }
}
