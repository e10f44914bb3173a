/**
 * Handlers and listeners may return any thenable (a promise from another realm or library), not
 * only a native `Promise`: `instanceof Promise` would send such a value as the result itself.
 * The engine, the server's tool and handler wrappers and the client's event emitter all use this one.
 */

/**
 * True for an object or function with a callable `then` (reading `then` may throw: callers guard).
 * Generic so that a `T | PromiseLike<T>` narrows to `PromiseLike<T>`, not `PromiseLike<unknown>`.
 *
 * @example
 * ```ts
 * const returned = handler(params);
 * if (isThenable(returned)) return Promise.resolve(returned).then(send, fail);
 * ```
 */
export function isThenable<T = unknown>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * A promise rejected with `error` as it was thrown: code that passes on what user code threw
 * (interceptors may throw anything) must not wrap or replace it.
 *
 * @example
 * try { return Promise.resolve(interceptor(call, next)); } catch (error) { return rejectWith(error); }
 */
export function rejectWith(error: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passed on unchanged
  return Promise.reject(error);
}
