/**
 * Per-request attempt counting, shared by the code flow (authorization flows) and the machine
 * grants (step-ups): a request is known by its signal; attempts further apart than the window (a
 * long-lived stream whose token lapsed again) start a new count, so only quick succession is a loop.
 */

/**
 * Counts attempts per request (by signal) within a window.
 *
 * @example
 * const attempts = new AttemptCounter(3, 600_000, Date.now);
 * if (!attempts.take(signal)) throw new AuthorizationError('step-up-limit', 'gave up after 3');
 */
export class AttemptCounter {
  private readonly counts = new WeakMap<AbortSignal, { count: number; last: number }>();

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one attempt for the request and returns true, or returns false when it is at the limit. */
  take(signal: AbortSignal): boolean {
    const now = this.now();
    const previous = this.counts.get(signal);
    const count = previous && now - previous.last < this.windowMs ? previous.count : 0;
    if (count >= this.limit) return false;
    this.counts.set(signal, { count: count + 1, last: now });
    return true;
  }
}
