// Small statistics helpers for the benchmark runner: percentiles of one window, and the
// median / min–max summary over the interleaved repetitions.

/** Nearest-rank percentile of an unsorted array of numbers (p in 0..100). */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Median, min and max of the finite values of `values`. */
export function summary(values) {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const mid = finite.length >> 1;
  const median = finite.length % 2 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
  return { median, min: finite[0], max: finite[finite.length - 1], n: finite.length };
}
