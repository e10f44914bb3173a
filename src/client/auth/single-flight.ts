import { AuthorizationError } from './errors.js';

/**
 * `promise`, or an `aborted` AuthorizationError as soon as `signal` aborts: a request that waits
 * for a shared authorization can give up without cancelling it for the others.
 *
 * @example
 * const ok = await raceAbort(sharedFlow, request.signal);
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted)
    return Promise.reject(
      new AuthorizationError('aborted', 'authorization aborted', { cause: signal.reason }),
    );
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void =>
      reject(new AuthorizationError('aborted', 'authorization aborted', { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
