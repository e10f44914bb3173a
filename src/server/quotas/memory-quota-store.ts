/**
 * The one-process {@link QuotaStore}: a Map per kind, each operation atomic because it runs to its
 * end without awaiting. Memory stays bounded: a principal's rate entry is dropped once its bucket
 * is full again (it then says nothing a missing entry would not), emptied slot sets are dropped at
 * once, and past `maxPrincipals` entries the oldest are evicted.
 */
import type { QuotaDecision, QuotaRequest, QuotaStore } from './quota-store.js';

/**
 * Options of {@link InMemoryQuotaStore}.
 *
 * @example
 * new InMemoryQuotaStore({ maxPrincipals: 50_000 });
 */
export interface InMemoryQuotaStoreOptions {
  /**
   * Most rate entries (principal × rate) and slot sets kept. Past it, expired entries are swept,
   * then the least recently used are dropped (forgetting a rate entry gives its principal a full
   * bucket again: a bound on memory, not on calls). Default 100,000.
   */
  maxPrincipals?: number;
  /** The clock (tests). Default `Date.now`. */
  now?: () => number;
}

const RESOLVED = Promise.resolve();
/** How many admits pass between two sweeps of full buckets and lapsed leases. */
const SWEEP_EVERY = 1_024;

/**
 * Quotas of one process: the default store of `quotas()`.
 *
 * @example
 * server.use(quotas({ store: new InMemoryQuotaStore(), limits: { rate: { calls: 100, windowMs: 60_000 } } }));
 */
export class InMemoryQuotaStore implements QuotaStore {
  /** `principal \n rate` → the time the bucket is full again (GCRA's theoretical arrival time). */
  private readonly rates = new Map<string, number>();
  /** principal → holder → lease end. */
  private readonly slots = new Map<string, Map<string, number>>();
  private readonly max: number;
  private readonly now: () => number;
  /** Admits since the last sweep: full buckets are dropped every {@link SWEEP_EVERY} admits. */
  private admits = 0;

  constructor(options: InMemoryQuotaStoreOptions = {}) {
    this.max = Math.max(1, Math.floor(options.maxPrincipals ?? 100_000));
    this.now = options.now ?? Date.now;
  }

  admit(request: QuotaRequest): Promise<QuotaDecision> {
    const now = this.now();
    // Amortised: principals that went quiet leave within SWEEP_EVERY admits, not only under pressure.
    if (++this.admits >= SWEEP_EVERY) {
      this.admits = 0;
      this.sweep(now);
    }
    const { principal, rates, slot } = request;
    const next: number[] = [];
    let refusedBy: string | undefined;
    let wait = 0;
    for (const rate of rates) {
      const interval = rate.windowMs / rate.calls;
      const full = this.rates.get(entryKey(principal, rate.name));
      const after = Math.max(full ?? now, now) + interval;
      // Room while the bucket, with this call in it, would be full again within one window.
      const over = after - now - rate.windowMs;
      if (over > 0 && over > wait) {
        wait = over;
        refusedBy = rate.name;
      }
      next.push(after);
    }
    if (refusedBy !== undefined)
      return Promise.resolve({ admitted: false, limit: refusedBy, retryAfterMs: Math.ceil(wait) });
    if (slot !== undefined) {
      const held = this.slots.get(principal);
      if (held !== undefined) {
        for (const [holder, until] of held) if (until <= now) held.delete(holder);
      }
      if (held !== undefined && held.size >= slot.max)
        return Promise.resolve({ admitted: false, limit: 'concurrent' });
      const set = held ?? new Map<string, number>();
      set.set(slot.holder, now + slot.leaseMs);
      if (held === undefined) this.remember(this.slots, principal, set, now);
    }
    for (let i = 0; i < rates.length; i++)
      this.remember(this.rates, entryKey(principal, rates[i]!.name), next[i]!, now);
    return Promise.resolve({ admitted: true });
  }

  renew(principal: string, holders: readonly string[], leaseMs: number): Promise<void> {
    const held = this.slots.get(principal);
    if (held === undefined) return RESOLVED;
    const until = this.now() + leaseMs;
    for (const holder of holders) if (held.has(holder)) held.set(holder, until);
    return RESOLVED;
  }

  release(principal: string, holder: string): Promise<void> {
    const held = this.slots.get(principal);
    if (held !== undefined && held.delete(holder) && held.size === 0) this.slots.delete(principal);
    return RESOLVED;
  }

  /** Set `key` as the most recent entry of `map`, keeping the total under the bound. */
  private remember<V>(map: Map<string, V>, key: string, value: V, now: number): void {
    map.delete(key); // re-inserted last: Map order is then least recently used first
    map.set(key, value);
    if (this.rates.size + this.slots.size <= this.max) return;
    this.sweep(now);
    while (this.rates.size + this.slots.size > this.max) {
      const victim = this.rates.size >= this.slots.size ? this.rates : this.slots;
      const oldest = victim.keys().next().value as string;
      victim.delete(oldest);
    }
  }

  /** Drop full buckets and lapsed leases. */
  private sweep(now: number): void {
    for (const [key, full] of this.rates) if (full <= now) this.rates.delete(key);
    for (const [principal, held] of this.slots) {
      for (const [holder, until] of held) if (until <= now) held.delete(holder);
      if (held.size === 0) this.slots.delete(principal);
    }
  }
}

function entryKey(principal: string, rate: string): string {
  return `${principal}\n${rate}`;
}
