/**
 * The {@link QuotaStore} contract: where the quotas interceptor keeps what it counts per principal
 * (calls taken from a rate, concurrency slots held). One process: `InMemoryQuotaStore`; several
 * processes: `RedisQuotaStore` (`keel-mcp/redis`). test/contracts/quota-store.contract.ts is the
 * contract both keep.
 */

/**
 * One rate a call must fit: `calls` per `windowMs`, as a token bucket of `calls` tokens that
 * refills one token every `windowMs / calls` (GCRA: one timestamp per rate and principal).
 *
 * @example
 * const rate: QuotaRate = { name: 'rate', calls: 100, windowMs: 60_000 };
 */
export interface QuotaRate {
  /** The limit's name, unique per principal (`rate`, `tool:search`): reported in a refusal. */
  readonly name: string;
  readonly calls: number;
  readonly windowMs: number;
}

/**
 * A concurrency slot to hold: at most `max` holders per principal, each for `leaseMs` unless
 * renewed, so a process that died cannot hold a slot for longer than one lease.
 *
 * @example
 * const slot: QuotaSlot = { holder: crypto.randomUUID(), max: 4, leaseMs: 60_000 };
 */
export interface QuotaSlot {
  /** Unique per call: what `release` and `renew` name. */
  readonly holder: string;
  readonly max: number;
  readonly leaseMs: number;
}

/**
 * What one call asks of the store, atomically: every rate has room and (if asked) a slot is free.
 *
 * @example
 * await store.admit({ principal: 'sub:alice', rates: [rate], slot });
 */
export interface QuotaRequest {
  /** Whom the limits are kept for (the quotas interceptor's key). */
  readonly principal: string;
  readonly rates: readonly QuotaRate[];
  readonly slot?: QuotaSlot | undefined;
}

/**
 * The store's answer. Refused: nothing was taken (no call from any rate, no slot); `limit` names
 * the rate (its `name`) or `'concurrent'`, and `retryAfterMs` says when a rate has room again
 * (absent for `'concurrent'`: a slot frees when a call ends, which no clock can tell).
 *
 * @example
 * const decision = await store.admit(request);
 * if (!decision.admitted) console.log(decision.limit, decision.retryAfterMs);
 */
export type QuotaDecision =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly limit: string; readonly retryAfterMs?: number | undefined };

/**
 * Where quotas are counted. Each method is atomic: two processes admitting at once never both
 * take the last call of a rate or the last slot. Time is the store's own clock (Redis: `TIME`),
 * so processes whose clocks drift still agree. A backend that is down rejects with
 * `StoreUnavailableError` within a bounded time; it never hangs.
 *
 * @example
 * const store: QuotaStore = new InMemoryQuotaStore();
 * const decision = await store.admit({ principal: 'sub:alice', rates: [{ name: 'rate', calls: 10, windowMs: 1_000 }] });
 */
export interface QuotaStore {
  /** Take one call from every rate and hold the slot, or take nothing and say which limit refused. */
  admit(request: QuotaRequest): Promise<QuotaDecision>;
  /** Extend the leases of `holders` (those still held) to `leaseMs` from now. */
  renew(principal: string, holders: readonly string[], leaseMs: number): Promise<void>;
  /** Free the slot of `holder`; releasing a slot that is not held (twice, expired) is harmless. */
  release(principal: string, holder: string): Promise<void>;
}
