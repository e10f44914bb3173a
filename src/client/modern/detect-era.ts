/**
 * The `server/discover` probe (spec: versioning and the stdio and HTTP "Backward Compatibility"
 * sections). A `DiscoverResult` or a recognised 2026-07-28 error means a modern server; anything
 * else (any other error, a transport failure such as an HTTP 4xx without a modern body, no answer
 * within the probe timeout) means a legacy one. Never keyed on one error code.
 */
import type { Connection } from '../../core/engine/connection.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import { ErrorCode, McpError, RequestAbortedError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../core/protocol-version.js';
import { MODERN_PROTOCOL_VERSIONS, type ModernProtocolVersion } from '../../core/types/modern.js';
import { NoSharedVersionError } from '../errors.js';
import {
  isRecognisedModernError,
  parseDiscoverResult,
  sharedVersion,
  supportedList,
  type Discovered,
} from './era.js';

/**
 * How long the probe waits for an answer before taking the server for a legacy one that ignores
 * requests sent before `initialize`. Long enough for a loaded machine to answer a request that
 * does no work; short because a silent legacy stdio server costs this on every connect.
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

const CLIENT_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/**
 * Send `server/discover` (with `meta(version)` as its `_meta`) and classify the answer. A
 * `-32022` naming a modern version we share is retried once with it; one naming only a handshake
 * revision we share sends the client to `initialize`. No shared version at all
 * throws {@link NoSharedVersionError}. The caller's abort rethrows; nothing else does.
 *
 * @example
 * const outcome = await probeEra(connection, (v) => modernMeta({ ...facts, protocolVersion: v }), { timeoutMs: 5_000 });
 */
export async function probeEra(
  connection: Connection,
  meta: (version: string) => JsonObject,
  options: Pick<RequestOptions, 'signal' | 'timeoutMs'>,
): Promise<ProbeOutcome> {
  let version: ModernProtocolVersion = MODERN_PROTOCOL_VERSIONS[0];
  for (let attempt = 0; ; attempt++) {
    let result: JsonObject;
    try {
      result = await connection.request('server/discover', { _meta: meta(version) }, options);
    } catch (error) {
      if (error instanceof RequestAbortedError) throw error;
      if (!isRecognisedModernError(error)) return { era: 'legacy', reason: error };
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
