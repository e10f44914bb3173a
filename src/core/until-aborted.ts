/**
 * Waiting on shared work with a signal of one's own: the waiter stops waiting when its signal
 * aborts, while the work goes on for the others.
 */

/**
 * `pending`'s outcome, or a rejection with `reason()` (default: the signal's reason) as soon as
 * `signal` aborts; the listener is removed either way.
 *
 * @example
 * const auth = await untilAborted(sharedCheck, request.signal);
 */
export function untilAborted<T>(
  pending: Promise<T>,
  signal: AbortSignal,
  reason: () => Error = () => signal.reason as Error,
): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    void pending.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}
