/**
 * The per-request `_meta` of a 2026-07-28 client: protocol version, client capabilities (in the
 * 2026-07-28 shape), client info and, when the caller asked for logs, the log level. Built in one
 * place and merged into every request the client sends in the modern era.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import type { ClientCapabilities } from '../../core/types/capabilities.js';
import type { Implementation } from '../../core/types/common.js';
import type { LoggingLevel } from '../../core/types/logging.js';
import { MetaKey } from '../../core/types/modern.js';

/**
 * What a modern client declares on every request.
 *
 * @example
 * const facts: ModernMetaFacts = { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'app', version: '1' } };
 */
export interface ModernMetaFacts {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  logLevel?: LoggingLevel | undefined;
}

/**
 * The 2026-07-28 shape of the client's capabilities: `roots` is `{}` (2026-07-28 removed
 * `notifications/roots/list_changed`, so `listChanged` would promise nothing) and `tasks` is gone
 * (an extension now, negotiated under `extensions`). Everything else is kept as declared.
 *
 * @example
 * toModernCapabilities({ roots: { listChanged: true }, sampling: {} }); // { roots: {}, sampling: {} }
 */
export function toModernCapabilities(capabilities: ClientCapabilities): ClientCapabilities {
  const { roots, tasks: _tasks, ...rest } = capabilities;
  return roots === undefined ? rest : { ...rest, roots: {} };
}

/**
 * The reserved `_meta` keys for one modern request.
 *
 * @example
 * modernMeta({ protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'a', version: '1' }, logLevel: 'info' });
 */
export function modernMeta(facts: ModernMetaFacts): JsonObject {
  const meta: JsonObject = {
    [MetaKey.ProtocolVersion]: facts.protocolVersion,
    [MetaKey.ClientCapabilities]: facts.capabilities,
    [MetaKey.ClientInfo]: facts.clientInfo,
  };
  if (facts.logLevel !== undefined) meta[MetaKey.LogLevel] = facts.logLevel;
  return meta;
}

/**
 * `params` with the modern keys merged into its `_meta`. Keys the caller put in `_meta` (a
 * progress token, trace context, or a deliberate override of a reserved key) win.
 *
 * @example
 * withModernMeta({ name: 'echo', _meta: { traceparent: '00-…' } }, modernMeta(facts));
 */
export function withModernMeta(params: JsonObject | undefined, meta: JsonObject): JsonObject {
  const own = params?._meta;
  const merged = typeof own === 'object' && own !== null && !Array.isArray(own) ? { ...meta, ...own } : meta;
  return { ...params, _meta: merged };
}
