/**
 * {@link QuotaStore} on Redis: quotas every process of a deployment shares (`quotas({ store })`).
 */
import type { QuotaDecision, QuotaRequest, QuotaStore } from '../../server/quotas/quota-store.js';
import { RedisAccess } from './redis-access.js';
import { ADMIT_QUOTA, RELEASE_QUOTA, RENEW_QUOTA } from './quota-scripts.js';
import { LuaScript, type RedisScriptClient } from './script.js';

/**
 * @example
 * new RedisQuotaStore({ client, namespace: 'app', commandTimeoutMs: 500 });
 */
export interface RedisQuotaStoreOptions {
  /** A connected client with an `'error'` listener, best with `disableOfflineQueue: true`. */
  client: RedisScriptClient;
  /** Every key is `keel:<namespace>:quota:...`. Letters, digits, `.`, `_`, `-`. Default `'default'`. */
  namespace?: string | undefined;
  /**
   * Every command fails with `StoreUnavailableError` after this long; `quotas()` then applies its
   * `whenStoreFails`. Default 2,000 ms: each counted call waits for one `admit`, so a lower value
   * bounds what a slow Redis adds to a call.
   */
  commandTimeoutMs?: number | undefined;
}

const STORE = 'redis quota store';
const ADMIT = new LuaScript(ADMIT_QUOTA);
const RENEW = new LuaScript(RENEW_QUOTA);
const RELEASE = new LuaScript(RELEASE_QUOTA);

/**
 * Keys: `keel:<ns>:quota:{<principal>}:slots` (sorted set, holder → lease end) and
 * `keel:<ns>:quota:{<principal>}:rate:<name>` (the time the bucket is full again). Every key has
 * an expiry: a rate key lives until its bucket is full again, a slot set until its last lease
 * ends, so a process that died frees its slots within one lease and quiet principals leave no keys.
 *
 * @example
 * import { quotas } from 'keel-mcp/server';
 * import { RedisQuotaStore } from 'keel-mcp/redis';
 * server.use(quotas({ store: new RedisQuotaStore({ client }), limits: { rate: { calls: 100, windowMs: 60_000 }, concurrent: 4 } }));
 */
export class RedisQuotaStore implements QuotaStore {
  private readonly redis: RedisAccess<RedisScriptClient>;

  constructor(options: RedisQuotaStoreOptions) {
    this.redis = new RedisAccess('RedisQuotaStore', STORE, options);
  }

  private base(principal: string): string {
    return `${this.redis.prefix}:quota:{${principal}}`;
  }

  async admit(request: QuotaRequest): Promise<QuotaDecision> {
    const base = this.base(request.principal);
    const keys = [`${base}:slots`];
    const slot = request.slot;
    const args = slot ? ['1', slot.holder, String(slot.max), String(slot.leaseMs)] : ['0', '', '0', '0'];
    for (const rate of request.rates) {
      keys.push(`${base}:rate:${rate.name}`);
      args.push(rate.name, String(rate.calls), String(rate.windowMs));
    }
    const out = (await this.redis.run('admit', ADMIT, keys, args)) as string[];
    if (out[0] === 'ok') return { admitted: true };
    if (out[0] === 'rate') return { admitted: false, limit: String(out[1]), retryAfterMs: Number(out[2]) };
    return { admitted: false, limit: 'concurrent' };
  }

  async renew(principal: string, holders: readonly string[], leaseMs: number): Promise<void> {
    if (holders.length === 0) return;
    await this.redis.run('renew', RENEW, [`${this.base(principal)}:slots`], [String(leaseMs), ...holders]);
  }

  async release(principal: string, holder: string): Promise<void> {
    await this.redis.run('release', RELEASE, [`${this.base(principal)}:slots`], [holder]);
  }
}
