/**
 * 2026-07-28 ("modern era") wire types: per-request `_meta` keys, `server/discover`, `resultType`
 * and caching hints. Multi round-trip types (`input_required`) live in their own module.
 */
import type { ClientCapabilities, ServerCapabilities } from './capabilities.js';
import type { Implementation } from './common.js';
import type { LoggingLevel } from './logging.js';

/**
 * The modern revisions Keel serves per request (a request's `_meta` names one of them).
 *
 * @example
 * MODERN_PROTOCOL_VERSIONS.includes('2026-07-28'); // true
 */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

/**
 * A modern revision Keel serves.
 *
 * @example
 * const version: ModernProtocolVersion = '2026-07-28';
 */
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];

/**
 * True for a modern revision Keel serves.
 *
 * @example
 * isModernVersion('2026-07-28'); // true
 * isModernVersion('2025-11-25'); // false (a handshake revision: reached through `initialize`)
 */
export function isModernVersion(value: unknown): value is ModernProtocolVersion {
  return (MODERN_PROTOCOL_VERSIONS as readonly unknown[]).includes(value);
}

/**
 * The reserved `_meta` keys of 2026-07-28.
 *
 * @example
 * const meta = { [MetaKey.ProtocolVersion]: '2026-07-28', [MetaKey.ClientCapabilities]: {} };
 */
export const MetaKey = {
  /** Request: the protocol version of this request (required). */
  ProtocolVersion: 'io.modelcontextprotocol/protocolVersion',
  /** Request: the client's capabilities for this request (required; `{}` = none). */
  ClientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  /** Request: the client's name and version (SHOULD). */
  ClientInfo: 'io.modelcontextprotocol/clientInfo',
  /** Request: minimum level of `notifications/message` for this request; absent = no logging. */
  LogLevel: 'io.modelcontextprotocol/logLevel',
  /** Result: the server's name and version (SHOULD, on every result). */
  ServerInfo: 'io.modelcontextprotocol/serverInfo',
  /** Notification: the `subscriptions/listen` request it was delivered for. */
  SubscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/**
 * `resultType` of every modern result: `complete`, or `input_required` for a multi round-trip
 * interim result. Other strings may appear in later revisions.
 *
 * @example
 * const done: ResultType = 'complete';
 */
export type ResultType = 'complete' | 'input_required' | (string & {});

/**
 * Who may cache a result: `public` (anyone, shared caches included) or `private` (only for the
 * same authorization context).
 *
 * @example
 * const scope: CacheScope = 'private';
 */
export type CacheScope = 'public' | 'private';

/**
 * Caching hints of a cacheable result (SEP-2549). `ttlMs` is a freshness hint, never negative.
 *
 * @example
 * const hint: CacheHint = { ttlMs: 60_000, cacheScope: 'public' };
 */
export interface CacheHint {
  ttlMs: number;
  cacheScope: CacheScope;
}

/**
 * The per-request fields a modern client sends in `params._meta`.
 *
 * @example
 * const meta: ModernRequestMeta = {
 *   'io.modelcontextprotocol/protocolVersion': '2026-07-28',
 *   'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
 * };
 */
export interface ModernRequestMeta {
  'io.modelcontextprotocol/protocolVersion': string;
  'io.modelcontextprotocol/clientCapabilities': ClientCapabilities;
  'io.modelcontextprotocol/clientInfo'?: Implementation;
  'io.modelcontextprotocol/logLevel'?: LoggingLevel;
  [key: string]: unknown;
}

/**
 * The result of `server/discover`.
 *
 * @example
 * const result: DiscoverResult = {
 *   resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} },
 *   ttlMs: 0, cacheScope: 'private',
 * };
 */
export interface DiscoverResult extends CacheHint {
  resultType: ResultType;
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  _meta?: { [key: string]: unknown };
}

/**
 * `error.data` of `-32022` (UnsupportedProtocolVersionError).
 *
 * @example
 * const data: UnsupportedVersionData = { supported: ['2026-07-28'], requested: '1900-01-01' };
 */
export interface UnsupportedVersionData {
  supported: string[];
  requested: string;
}
