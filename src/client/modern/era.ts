/**
 * What a client knows about a server's era: the `era` option, the per-process cache keyed by the
 * transport's `serverKey`, and how to recognise a 2026-07-28 answer (a `DiscoverResult`, or one of
 * the error codes 2026-07-28 defines) as opposed to anything a legacy server may say.
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { isSupportedVersion, type ProtocolVersion } from '../../core/protocol-version.js';
import type { ServerCapabilities } from '../../core/types/capabilities.js';
import type { Implementation } from '../../core/types/common.js';
import { isModernVersion, MetaKey, type ModernProtocolVersion } from '../../core/types/modern.js';

/**
 * Which era a client speaks: `auto` probes with `server/discover` and falls back to `initialize`;
 * `modern` requires a 2026-07-28 server; `legacy` sends `initialize` at once (as before).
 *
 * @example
 * new McpClient(info, { era: 'legacy' });
 */
export type EraOption = 'auto' | 'modern' | 'legacy';

/**
 * The era a connected client speaks.
 *
 * @example
 * if (client.era === 'modern') console.error('2026-07-28, per-request _meta');
 */
export type ClientEra = 'modern' | 'legacy';

/**
 * How many servers' eras the process remembers (spec: cache the result per server). A process
 * that talks to more servers than this (a gateway, a crawler) re-probes the least recently used
 * ones; without a bound, every distinct URL it was ever given would stay in memory.
 *
 * @example
 * for (const url of urls.slice(0, MAX_CACHED_ERAS)) await McpClient.connect(info, new StreamableHttpClientTransport(url));
 */
export const MAX_CACHED_ERAS = 256;

/** Era per server (transport `serverKey`); a Map keeps insertion order, oldest use first. */
const eraCache = new Map<string, ClientEra>();

/**
 * The transport's `serverKey` (HTTP: origin + path), read duck-typed: stdio has none (one
 * connection is one server process, so there is nothing to share).
 *
 * @example
 * serverKeyOf(httpTransport); // 'https://example.com/mcp'
 */
export function serverKeyOf(transport: object): string | undefined {
  const key = (transport as { serverKey?: unknown }).serverKey;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/**
 * The cached era of a server, if this process learned it.
 *
 * @example
 * cachedEra('https://example.com/mcp'); // 'legacy' after a fallback
 */
export function cachedEra(key: string | undefined): ClientEra | undefined {
  if (key === undefined) return undefined;
  const era = eraCache.get(key);
  if (era !== undefined) {
    // A use makes it the most recent: re-inserted at the end of the order.
    eraCache.delete(key);
    eraCache.set(key, era);
  }
  return era;
}

/**
 * Remember (or, with `undefined`, forget) a server's era.
 *
 * @example
 * rememberEra('https://example.com/mcp', 'modern');
 */
export function rememberEra(key: string | undefined, era: ClientEra | undefined): void {
  if (key === undefined) return;
  eraCache.delete(key);
  if (era === undefined) return;
  eraCache.set(key, era);
  // Evict the least recently used: the first key in insertion order.
  while (eraCache.size > MAX_CACHED_ERAS) eraCache.delete(eraCache.keys().next().value as string);
}

/**
 * Forget every cached era (tests; a process that wants to re-probe every server).
 *
 * @example
 * clearEraCache();
 */
export function clearEraCache(): void {
  eraCache.clear();
}

/**
 * True for an error only a 2026-07-28 server sends: `-32022` with a `data.supported` list of
 * strings, or `-32021` with a `data.requiredCapabilities` object. The codes alone are not enough:
 * before 2026-07-28 the whole -32000..-32099 range was implementation-defined, so a legacy server
 * may send any of them; the `data` shape the 2026-07-28 schema gives them is what tells. `-32020`
 * (HeaderMismatch) never counts: the schema gives it no `data`, so a legacy server's own -32020
 * looks exactly like it (and a modern server sends it only for headers the client got wrong).
 *
 * @example
 * isRecognisedModernError(new McpError(-32022, 'Unsupported', { supported: ['2026-07-28'] })); // true
 * isRecognisedModernError(new McpError(-32020, 'Header mismatch')); // false
 * isRecognisedModernError(new McpError(-32601, 'Method not found')); // false
 */
export function isRecognisedModernError(error: unknown): error is McpError {
  if (!(error instanceof McpError)) return false;
  const data = error.data as JsonObject | undefined;
  if (error.code === ErrorCode.UnsupportedProtocolVersion) return supportedList(data) !== undefined;
  if (error.code === ErrorCode.MissingRequiredClientCapability) {
    const required = data?.requiredCapabilities;
    return typeof required === 'object' && required !== null && !Array.isArray(required);
  }
  return false;
}

/**
 * `data.supported` of a -32022, when it is a list of strings.
 *
 * @example
 * supportedList({ supported: ['2026-07-28'], requested: 'x' }); // ['2026-07-28']
 */
export function supportedList(data: JsonObject | undefined): string[] | undefined {
  const supported = data?.supported;
  return Array.isArray(supported) && supported.every((v) => typeof v === 'string') ? supported : undefined;
}

/**
 * A well-formed `server/discover` answer, reduced to what the client keeps.
 *
 * @example
 * const discovered: Discovered = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
 */
export interface Discovered {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

function implementation(value: unknown): Implementation | undefined {
  return isJsonObject(value) && typeof value.name === 'string' && typeof value.version === 'string'
    ? (value as unknown as Implementation)
    : undefined;
}

/**
 * The `DiscoverResult` in `result`, or undefined when it is not one (a legacy server's answer to
 * an unknown method may be anything). `serverInfo` is read from `_meta` (2026-07-28), else from a
 * top-level `serverInfo` some servers send.
 *
 * @example
 * parseDiscoverResult({ resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} });
 */
export function parseDiscoverResult(result: JsonObject): Discovered | undefined {
  const { supportedVersions, capabilities, instructions, resultType } = result;
  if (resultType !== undefined && resultType !== 'complete') return undefined;
  if (!Array.isArray(supportedVersions) || !supportedVersions.every((v) => typeof v === 'string'))
    return undefined;
  if (!isJsonObject(capabilities)) return undefined;
  const meta = isJsonObject(result._meta) ? result._meta : undefined;
  const discovered: Discovered = {
    supportedVersions: supportedVersions,
    capabilities: capabilities,
  };
  const serverInfo = implementation(meta?.[MetaKey.ServerInfo]) ?? implementation(result.serverInfo);
  if (serverInfo) discovered.serverInfo = serverInfo;
  if (typeof instructions === 'string') discovered.instructions = instructions;
  return discovered;
}

/**
 * The versions a server lists that this client speaks: the first modern one we share, else the
 * first handshake revision we share (a server may list those too: then `initialize` reaches it).
 *
 * @example
 * sharedVersion(['2026-07-28', '2025-11-25']); // { modern: '2026-07-28' }
 * sharedVersion(['2025-06-18']); // { legacy: '2025-06-18' }
 */
export function sharedVersion(
  supported: readonly string[],
): { modern: ModernProtocolVersion } | { legacy: ProtocolVersion } | undefined {
  const modern = supported.find(isModernVersion);
  if (modern !== undefined) return { modern };
  const legacy = supported.find(isSupportedVersion);
  return legacy === undefined ? undefined : { legacy };
}
