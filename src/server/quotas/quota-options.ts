/**
 * The options of `quotas()` and their checks: what is limited, for whom, where it is counted and
 * what happens when the store cannot be reached.
 */
import type { Logger } from '../../core/engine/connection-types.js';
import type { ServerCall } from '../interceptors.js';
import type { QuotaStore } from './quota-store.js';

/**
 * `calls` per `windowMs`, per principal. Kept as a token bucket (GCRA): a caller may use its
 * whole window at once, then gets one call every `windowMs / calls`; a refusal says exactly when
 * the next call fits.
 *
 * @example
 * const perMinute: QuotaRateLimit = { calls: 100, windowMs: 60_000 };
 */
export interface QuotaRateLimit {
  calls: number;
  windowMs: number;
}

/**
 * The limits each principal gets. Every limit is optional; none at all is a `RangeError`.
 *
 * @example
 * const limits: QuotaLimits = { rate: { calls: 100, windowMs: 60_000 }, concurrent: 4, tools: { search: { calls: 10, windowMs: 60_000 } } };
 */
export interface QuotaLimits {
  /** Calls per window over every counted method. */
  rate?: QuotaRateLimit;
  /** Per tool (`tools/call` of that name), on top of `rate`. */
  tools?: { readonly [tool: string]: QuotaRateLimit };
  /**
   * Calls running at once: a slot is held from the start of a counted request until it ends for
   * any reason (result, error, cancel, disconnect), released exactly once.
   */
  concurrent?: number;
}

/**
 * Options of `quotas()`.
 *
 * @example
 * server.use(quotas({ limits: { rate: { calls: 100, windowMs: 60_000 }, concurrent: 4 }, store: new RedisQuotaStore({ client }) }));
 */
export interface QuotaOptions {
  limits: QuotaLimits;
  /** Where counts live. Default: a new `InMemoryQuotaStore` (this process only). */
  store?: QuotaStore;
  /**
   * Whom a call counts for. Default: the verified principal (issuer and subject, or client id)
   * when the request is authenticated; else the session (a stdio or memory connection, a legacy
   * HTTP session); else `'anonymous'` (one key for every unauthenticated request of a stateless
   * or 2026-07-28 HTTP endpoint: return your own, e.g. from an API key header, to split them).
   * Return `undefined` to leave a call unlimited.
   */
  key?: (call: ServerCall) => string | undefined;
  /**
   * The request methods that count. Default `['tools/call']`. `initialize`, `ping`,
   * `server/discover` and the `tasks/*` methods never count (a caller over its quota can still
   * connect, poll and cancel what it has); naming one is a `RangeError`. Notifications never count.
   */
  methods?: readonly string[];
  /**
   * When the store fails (Redis down or too slow): `'allow'` (default) serves the call
   * unlimited, `'refuse'` answers `-32010` (server busy). Either way the failure is logged once
   * per outage (and its end once).
   */
  whenStoreFails?: 'allow' | 'refuse';
  /** How long a concurrency slot is held without renewal; renewed every third of it while the call runs. Default 60,000. */
  leaseMs?: number;
  /** Retry hint of a concurrency refusal (a slot frees when a call ends: no clock can tell). Default 1,000. */
  busyRetryAfterMs?: number;
  /** Where store outages are reported. Default: stderr. */
  logger?: Pick<Logger, 'error'>;
}

/** Methods that never count, whatever `methods` says. */
export const NEVER_COUNTED: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tasks/get',
  'tasks/result',
  'tasks/cancel',
  'tasks/list',
  'tasks/update',
]);

/**
 * The checked options: every number a positive integer, at least one limit, no method that must
 * never count.
 *
 * @example
 * const resolved = resolveQuotaOptions({ limits: { concurrent: 2 } });
 */
export function resolveQuotaOptions(options: QuotaOptions): {
  methods: ReadonlySet<string>;
  leaseMs: number;
  busyRetryAfterMs: number;
} {
  const { limits } = options;
  if (
    limits === undefined ||
    (limits.rate === undefined && limits.tools === undefined && limits.concurrent === undefined)
  )
    throw new RangeError('quotas: limits needs at least one of rate, tools, concurrent');
  if (limits.rate !== undefined) checkRate('limits.rate', limits.rate);
  for (const [tool, rate] of Object.entries(limits.tools ?? {})) checkRate(`limits.tools.${tool}`, rate);
  if (limits.concurrent !== undefined) positive('limits.concurrent', limits.concurrent);
  const methods = new Set(options.methods ?? ['tools/call']);
  for (const method of methods) {
    if (NEVER_COUNTED.has(method) || method.startsWith('notifications/'))
      throw new RangeError(`quotas: ${method} is never counted (a caller over quota must still reach it)`);
  }
  if (
    options.whenStoreFails !== undefined &&
    options.whenStoreFails !== 'allow' &&
    options.whenStoreFails !== 'refuse'
  )
    throw new RangeError(
      `quotas: whenStoreFails must be 'allow' or 'refuse', got ${String(options.whenStoreFails)}`,
    );
  return {
    methods,
    leaseMs: positive('leaseMs', options.leaseMs ?? 60_000),
    busyRetryAfterMs: positive('busyRetryAfterMs', options.busyRetryAfterMs ?? 1_000),
  };
}

function checkRate(name: string, rate: QuotaRateLimit): void {
  positive(`${name}.calls`, rate?.calls);
  positive(`${name}.windowMs`, rate?.windowMs);
}

function positive(name: string, value: number | undefined): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new RangeError(`quotas: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}
