import { AuthorizationError } from './errors.js';

const aborted = (signal: AbortSignal): AuthorizationError =>
  new AuthorizationError('aborted', 'authorization aborted', { cause: signal.reason });

/**
 * Options of a {@link SharedFlight}.
 *
 * @example
 * new SharedFlight(work, { timeoutMs: 60_000, timeoutError: () => new Error('too slow') });
 */
export interface SharedFlightOptions {
  /**
   * Bound on the whole work: when it passes, the work's signal aborts and the flight fails with
   * `timeoutError()` at once, even when the work ignores its signal (a fetch that never answers).
   */
  readonly timeoutMs?: number;
  readonly timeoutError?: () => Error;
}

/**
 * One authorization (or refresh) shared by every request that needs it. It runs with its own
 * signal: a waiting request that aborts stops waiting (its wait rejects with `aborted`) without
 * cancelling the work for the others; the work is aborted only when every waiter has given up, and
 * from then on the flight is no longer {@link SharedFlight.joinable}.
 *
 * @example
 * const flight = new SharedFlight((signal) => runAuthorization(signal));
 * const ok = await flight.wait(request.signal);
 */
export class SharedFlight<T> {
  readonly promise: Promise<T>;
  private readonly controller = new AbortController();
  private waiters = 0;
  private settled = false;

  constructor(work: (signal: AbortSignal) => Promise<T>, options: SharedFlightOptions = {}) {
    const { timeoutMs } = options;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = new Promise<T>((resolve, reject) => {
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const error =
            options.timeoutError?.() ?? new AuthorizationError('discovery', 'authorization timed out');
          this.controller.abort(error);
          reject(error);
        }, timeoutMs);
      }
      work(this.controller.signal).then(resolve, reject);
    });
    this.promise = outcome.finally(() => {
      this.settled = true;
      clearTimeout(timer);
    });
    // Waiters observe the outcome; a flight nobody waits for any more must not be unhandled.
    this.promise.catch(() => undefined);
  }

  /**
   * Whether a new request may still wait for this flight: not once it settled, and not once every
   * waiter gave up (its work is being aborted and can only fail with `aborted`).
   */
  get joinable(): boolean {
    return !this.settled && !this.controller.signal.aborted;
  }

  /** The flight's outcome, or an `aborted` AuthorizationError as soon as `signal` aborts. */
  wait(signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(aborted(signal));
    this.waiters++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(aborted(signal));
        if (--this.waiters === 0 && !this.settled) this.controller.abort(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

/**
 * Where one kind of shared work runs: at most one joinable {@link SharedFlight} at a time. A
 * request joins the running flight, or starts a new one when there is none or the running one was
 * abandoned by all its waiters (a request that never aborted must not fail with `aborted`).
 *
 * @example
 * const slot = new FlightSlot<boolean>();
 * const ok = await slot.join(request.signal, (shared) => authorize(shared));
 */
export class FlightSlot<T> {
  private flight: SharedFlight<T> | undefined;

  constructor(private readonly options: SharedFlightOptions = {}) {}

  /** The flight a request may wait for, if one runs. */
  get current(): SharedFlight<T> | undefined {
    return this.flight?.joinable ? this.flight : undefined;
  }

  /** Wait for the running flight, or start `work` as a new one. */
  join(signal: AbortSignal, work: (shared: AbortSignal) => Promise<T>): Promise<T> {
    // An aborted request starts nothing: with no waiter, nobody would ever abort the work.
    if (signal.aborted) return Promise.reject(aborted(signal));
    let flight = this.current;
    if (!flight) {
      const started = new SharedFlight(work, this.options);
      this.flight = flight = started;
      void started.promise
        .finally(() => {
          if (this.flight === started) this.flight = undefined;
        })
        .catch(() => undefined);
    }
    return flight.wait(signal);
  }
}
