/**
 * One timer for all of a connection's pending outbound requests, armed for the earliest deadline.
 */

/** The longest delay `setTimeout` honours; longer ones fire after 1 ms, so they are chained. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * Why one timer and not one per request: a `setTimeout` per request is an object, an async
 * resource and two timer-list operations, on every request, for a deadline that almost never
 * fires. Here a request only compares its deadline with the one the timer is armed for; a request
 * that settles leaves the timer alone. When the timer fires, `sweep` expires what is due and
 * returns the next deadline (or `Infinity`), and the timer is armed again for it. The owner calls
 * {@link stop} once nothing is pending, so no timer outlives the requests (nor keeps the process
 * alive after them).
 *
 * @example
 * const timer = new DeadlineTimer((now) => table.expireDue(now));
 * timer.ensure(Date.now() + 60_000, Date.now());
 */
export class DeadlineTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedFor = Infinity;

  /** `sweep(now)` expires what is due at `now` and returns the earliest deadline left. */
  constructor(private readonly sweep: (now: number) => number) {}

  /** A deadline at `due` (ms since the epoch) exists: fire no later than that. */
  ensure(due: number, now: number): void {
    if (due < this.armedFor && due !== Infinity) this.arm(due, now);
  }

  /** Nothing is pending any more. */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  private arm(due: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedFor = due;
    this.timer = setTimeout(this.fire, Math.min(Math.max(0, due - now), MAX_TIMER_DELAY));
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = Date.now();
    // The earliest deadline left (also one beyond setTimeout's range: the timer is chained).
    this.ensure(this.sweep(now), now);
  };
}
