/**
 * Handlers may return any thenable (a promise from another realm or library), not only a native
 * `Promise`: `instanceof Promise` would send such a value as the result itself.
 */

/** True for an object or function with a callable `then` (reading `then` may throw: callers guard). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
