import { AuthorizationError } from './errors.js';

const aborted = (signal: AbortSignal): AuthorizationError =>
  new AuthorizationError('aborted', 'authorization aborted', { cause: signal.reason });

/**
 * One authorization (or refresh) shared by every request that needs it. It runs with its own
 * signal: a waiting request that aborts stops waiting (its wait rejects with `aborted`) without
 * cancelling the work for the others; the work is aborted only when every waiter has given up.
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

  constructor(work: (signal: AbortSignal) => Promise<T>) {
    this.promise = work(this.controller.signal).finally(() => {
      this.settled = true;
    });
    // Waiters observe the outcome; a flight nobody waits for any more must not be unhandled.
    this.promise.catch(() => undefined);
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
