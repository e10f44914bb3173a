/**
 * `quotas()`: limits per caller (calls per window, concurrent calls) as a server interceptor, kept
 * in one process (`InMemoryQuotaStore`) or across processes (`RedisQuotaStore`), plus the one
 * refusal shape for running tasks (`tasks.maxPerOwner`, counted by the task store).
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { ServerCall, ServerInterceptor, ServerNext } from '../interceptors.js';
import { Leases } from './leases.js';
import { InMemoryQuotaStore } from './memory-quota-store.js';
import { defaultQuotaKey } from './principal.js';
import { isTaskOwnerLimit, quotaExceeded } from './quota-error.js';
import { resolveQuotaOptions, type QuotaLimits, type QuotaOptions } from './quota-options.js';
import type { QuotaDecision, QuotaRate, QuotaStore } from './quota-store.js';
import { STDERR_LOGGER, StoreHealth } from './store-health.js';

/**
 * An interceptor that keeps each caller within its limits. Past one, the call is answered with
 * `-32011` (`ErrorCode.QuotaExceeded`, `data: { limit, retryAfterMs }`; over HTTP 429 with
 * `Retry-After`) and its handler never runs; other callers are not affected. A refused call takes
 * nothing: no call from any window, no slot. Running tasks per caller are bounded by the task
 * store (`tasks.maxPerOwner`); with quotas installed, that refusal takes this same shape
 * (`limit: 'tasks'`).
 *
 * @example
 * import { McpServer, quotas } from 'keel-mcp/server';
 * const server = new McpServer({ name: 'api', version: '1.0.0' });
 * server.use(quotas({ limits: { rate: { calls: 100, windowMs: 60_000 }, concurrent: 4 } }));
 */
export function quotas(options: QuotaOptions): ServerInterceptor {
  const { methods, leaseMs, busyRetryAfterMs } = resolveQuotaOptions(options);
  const store: QuotaStore = options.store ?? new InMemoryQuotaStore();
  const key = options.key ?? defaultQuotaKey;
  const failOpen = options.whenStoreFails !== 'refuse';
  const health = new StoreHealth(options.logger ?? STDERR_LOGGER, failOpen ? 'allow' : 'refuse');
  const { limits } = options;
  const rates = ratesOf(limits);
  const concurrent = limits.concurrent;
  const leases = concurrent === undefined ? undefined : new Leases(store, leaseMs, health);

  const refusal = (decision: Exclude<QuotaDecision, { admitted: true }>): McpError => {
    const retryAfterMs = Math.max(0, Math.ceil(decision.retryAfterMs ?? busyRetryAfterMs));
    return quotaExceeded(decision.limit, retryAfterMs, describe(limits, decision.limit));
  };
  const tasksShape = (error: unknown): never => {
    if (!isTaskOwnerLimit(error)) throw error;
    const running = (error.data as { value?: unknown }).value;
    throw quotaExceeded(
      'tasks',
      busyRetryAfterMs,
      `${String(running)} running tasks for this caller (tasks.maxPerOwner)`,
    );
  };

  return async (call: ServerCall, next: ServerNext): Promise<JsonObject> => {
    if (call.kind !== 'request' || !methods.has(call.method)) return next();
    const principal = key(call);
    if (principal === undefined) return next().catch(tasksShape);
    const ratesOfCall = rates(call);
    // Only per-tool rates, and not one of those tools: nothing to ask the store.
    if (concurrent === undefined && ratesOfCall.length === 0) return next().catch(tasksShape);
    const holder = concurrent === undefined ? undefined : crypto.randomUUID();
    let decision: QuotaDecision;
    try {
      decision = await store.admit({
        principal,
        rates: ratesOfCall,
        slot: holder === undefined ? undefined : { holder, max: concurrent!, leaseMs },
      });
      health.ok();
    } catch (error) {
      health.failed('admit', error);
      if (!failOpen) {
        throw new McpError(ErrorCode.ServerBusy, 'Server busy: the quota store is unavailable; retry later', {
          limit: 'store',
          retryAfterMs: busyRetryAfterMs,
        });
      }
      return next().catch(tasksShape);
    }
    if (!decision.admitted) throw refusal(decision);
    if (holder === undefined) return next().catch(tasksShape);
    const lease = leases!.hold(principal, holder, call.signal);
    try {
      return await next().catch(tasksShape);
    } finally {
      // The answer leaves after the slot is free (one store round trip, bounded by its command
      // timeout): otherwise a client's next call could race the release and be refused.
      await lease.release();
    }
  };
}

/** The rates a call must fit, per tool name (one array per tool, built once). */
function ratesOf(limits: QuotaLimits): (call: ServerCall) => readonly QuotaRate[] {
  const base: readonly QuotaRate[] = limits.rate ? [{ name: 'rate', ...pick(limits.rate) }] : [];
  const perTool = new Map<string, readonly QuotaRate[]>();
  for (const [tool, rate] of Object.entries(limits.tools ?? {}))
    perTool.set(tool, [...base, { name: `tool:${tool}`, ...pick(rate) }]);
  if (perTool.size === 0) return () => base;
  return (call) => {
    if (call.method !== 'tools/call') return base;
    const name = call.params.name;
    return (typeof name === 'string' && perTool.get(name)) || base;
  };
}

function pick(rate: { calls: number; windowMs: number }): { calls: number; windowMs: number } {
  return { calls: rate.calls, windowMs: rate.windowMs };
}

/** The limit in words, for the error message. */
function describe(limits: QuotaLimits, limit: string): string {
  if (limit === 'concurrent') return `${limits.concurrent} calls at once for this caller`;
  const tool = limit.startsWith('tool:') ? limit.slice(5) : undefined;
  const rate = tool === undefined ? limits.rate : limits.tools?.[tool];
  if (rate === undefined) return `limit ${limit}`;
  return `${rate.calls} calls${tool === undefined ? '' : ` of ${tool}`} per ${rate.windowMs} ms for this caller`;
}
