/**
 * The concurrency slots this process holds: each released exactly once (when its call ends, or
 * at once when its request is aborted, whichever comes first), and all renewed by one interval
 * that runs only while a slot is held (no timer per call).
 */
import type { QuotaStore } from './quota-store.js';
import type { StoreHealth } from './store-health.js';

/**
 * One held slot. It is its own abort listener (`handleEvent`): no closure per call.
 *
 * @example
 * const lease = leases.hold('sub:alice', holder, call.signal);
 * try { return await next(); } finally { await lease.release(); }
 */
export class Lease {
  /** Settles once the store freed the slot (never rejects); set by the first release. */
  private released: Promise<void> | undefined;

  constructor(
    private readonly keeper: Leases,
    readonly principal: string,
    readonly holder: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * Free the slot; later calls return the same promise. It settles once the store answered (or
   * failed: the slot then lapses with its lease), so a call's answer can wait for it: a client
   * that sends its next call on the answer must find the slot free on any process.
   */
  release(): Promise<void> {
    if (this.released !== undefined) return this.released;
    this.signal?.removeEventListener('abort', this);
    return (this.released = this.keeper.drop(this));
  }

  /** The request was cancelled or its connection closed: it has ended, the slot with it. */
  handleEvent(): void {
    void this.release();
  }
}

/**
 * @example
 * const leases = new Leases(store, 60_000, health);
 */
export class Leases {
  /** principal → holder → lease: what the renewal interval extends. */
  private readonly held = new Map<string, Map<string, Lease>>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly store: QuotaStore,
    private readonly leaseMs: number,
    private readonly health: StoreHealth,
  ) {}

  /** Track the slot the store just granted; released at once if `signal` already aborted. */
  hold(principal: string, holder: string, signal: AbortSignal | undefined): Lease {
    const lease = new Lease(this, principal, holder, signal);
    let holders = this.held.get(principal);
    if (holders === undefined) this.held.set(principal, (holders = new Map()));
    holders.set(holder, lease);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.renewAll(), Math.max(1, Math.floor(this.leaseMs / 3)));
      // A slot renewal must never keep a process alive.
      (this.timer as { unref?: () => void }).unref?.();
    }
    if (signal !== undefined) {
      if (signal.aborted) void lease.release();
      else signal.addEventListener('abort', lease, { once: true });
    }
    return lease;
  }

  /** @internal Called once per lease by {@link Lease.release}; never rejects. */
  drop(lease: Lease): Promise<void> {
    const holders = this.held.get(lease.principal);
    if (holders?.delete(lease.holder) && holders.size === 0) this.held.delete(lease.principal);
    if (this.held.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    // A failed release is no leak: the slot lapses with its lease.
    return this.store.release(lease.principal, lease.holder).then(
      () => this.health.ok(),
      (error: unknown) => this.health.failed('release', error),
    );
  }

  /** How many slots this process holds (tests). */
  get size(): number {
    let count = 0;
    for (const holders of this.held.values()) count += holders.size;
    return count;
  }

  private renewAll(): void {
    for (const [principal, holders] of this.held) {
      this.store.renew(principal, [...holders.keys()], this.leaseMs).then(
        () => this.health.ok(),
        (error: unknown) => this.health.failed('renew', error),
      );
    }
  }
}
