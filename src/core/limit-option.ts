/**
 * The one check of a numeric bound given as an option (subscription limits, cache sizes): what
 * every such option accepts, and the error it gives.
 */

/**
 * Check a limit option: undefined gives `fallback`; anything but a positive integer throws.
 *
 * @example
 * limitOption('maxSubscriptions', undefined, 1024); // 1024
 */
export function limitOption(name: string, value: number | undefined, fallback: number): number {
  const limit = value ?? fallback;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return limit;
}
