/** One time bound and one error shape for every Redis command the adapters send. */
import { StoreUnavailableError } from '../../core/errors.js';

/**
 * Settle with `command`, or reject with {@link StoreUnavailableError} after `timeoutMs`; any
 * other failure becomes a `StoreUnavailableError` too, unless `mapError` returns a more precise
 * error. The timer is always cleared (no handle left behind).
 *
 * On the hot path (a publish per relayed chunk, a script per SSE event): one timer and one
 * promise per command, no race and no closure beyond the two settle callbacks. A command that
 * settles after its timeout is observed here, so it never becomes an unhandled rejection.
 */
export function bounded<T>(
  store: string,
  operation: string,
  command: Promise<T>,
  timeoutMs: number,
  mapError?: (error: unknown) => Error | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new StoreUnavailableError(store, operation, { timedOut: true })),
      timeoutMs,
    );
    command.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(
          error instanceof StoreUnavailableError
            ? error
            : (mapError?.(error) ?? new StoreUnavailableError(store, operation, { cause: error })),
        );
      },
    );
  });
}

/**
 * `command()`, with a synchronous throw (node-redis throws from a closed client) turned into a
 * rejection, so it is bounded and mapped like any other failure.
 */
export function attempt<T>(command: () => Promise<T>): Promise<T> {
  try {
    return command();
  } catch (error) {
    return rejection(error);
  }
}

/** A rejected promise for a thrown value (a non-`Error` is wrapped, so callers always get an `Error`). */
export function rejection(error: unknown): Promise<never> {
  return Promise.reject(error instanceof Error ? error : new Error(String(error)));
}
