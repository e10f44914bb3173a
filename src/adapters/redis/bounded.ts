/** One time bound and one error shape for every Redis command the adapters send. */
import { StoreUnavailableError } from '../../core/errors.js';

/**
 * Settle with `command`, or reject with {@link StoreUnavailableError} after `timeoutMs`; any
 * other failure becomes a `StoreUnavailableError` too, unless `mapError` returns a more precise
 * error. The timer is always cleared (no handle left behind).
 */
export async function bounded<T>(
  store: string,
  operation: string,
  command: Promise<T>,
  timeoutMs: number,
  mapError?: (error: unknown) => Error | undefined,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError(store, operation, { timedOut: true })),
      timeoutMs,
    );
  });
  // A command that settles after its timeout must not become an unhandled rejection.
  command.catch(() => undefined);
  try {
    return await Promise.race([command, timeout]);
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw mapError?.(error) ?? new StoreUnavailableError(store, operation, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
