// The "Before/after" section of BENCHMARKS.md, written when the run measured a baseline
// (BENCH_BASELINE, setup `keelBefore`, see baseline.mjs): every target set on Keel's default setup
// against the bare limit, for the baseline and the current build, both ÷ bare paired per
// repetition, and current ÷ baseline paired the same way; then every CPU row of the SDK table.
import { BASELINE_KEY } from './baseline.mjs';
import { CPU_ROWS, TARGETS, cell, fmt, ratios } from './report-spec.mjs';
import { summary } from './stats.mjs';

/** `met` / `missed` / `—` of a median against a limit. */
function status(values, limit) {
  const s = summary(values ?? []);
  if (s.n === 0) return '—';
  return s.median <= limit ? 'met' : 'missed';
}

/**
 * Rows of the before/after target table: `[target, limit, before, now, now ÷ before, status]`.
 * Targets set against another Keel setup (zod, web) have no baseline counterpart and are left out,
 * as are reference entries on a setup's own figures (`per`).
 */
export function beforeAfterRows(results) {
  const rows = [];
  for (const target of TARGETS) {
    if (target.against || target.per) continue;
    const of = (key) => results[target.metric]?.[key];
    // A target neither build was measured for in this run (a partial run) is left out.
    if (!of(BASELINE_KEY)?.length && !of('keel')?.length) continue;
    const change = cell(ratios(target.metric, of('keel'), of(BASELINE_KEY)), fmt.ratio);
    if (target.absolute !== undefined) {
      rows.push([
        target.name,
        `≤ ${fmt.kb(target.absolute)} KB`,
        `${cell(of(BASELINE_KEY), fmt.kb)} KB`,
        `${cell(of('keel'), fmt.kb)} KB`,
        change,
        `${status(of(BASELINE_KEY), target.absolute)} → ${status(of('keel'), target.absolute)}`,
      ]);
      continue;
    }
    const before = ratios(target.metric, of(BASELINE_KEY), of('bare'));
    const now = ratios(target.metric, of('keel'), of('bare'));
    rows.push([
      target.name,
      `≤ ${target.limit}× bare`,
      cell(before, fmt.ratio),
      cell(now, fmt.ratio),
      change,
      `${status(before, target.limit)} → ${status(now, target.limit)}`,
    ]);
  }
  return rows;
}

/**
 * The section's markdown lines, or none when the run had no baseline figures.
 *
 * @example
 * out.push(...beforeAfterSection(results, byKey, table));
 */
export function beforeAfterSection(results, byKey, table) {
  const before = byKey.get(BASELINE_KEY);
  const measured = Object.values(results).some((perSetup) => perSetup[BASELINE_KEY]?.length);
  if (!before || !measured) return [];
  const now = byKey.get('keel')?.label ?? 'Keel';
  const out = ['## Before/after\n'];
  out.push(
    `**${before.label}** (the baseline, see Setups) against **${now}** (this tree), measured in the same run, ` +
      'interleaved in the same rounds. "before" and "now" are each ÷ the bare limit of the same repetition; ' +
      '"now ÷ before" pairs the two builds per repetition (below 1× means the current build uses less). ' +
      'Median (min–max) over the repetitions.\n',
  );
  out.push(
    table(
      ['target', 'limit', 'before', 'now', 'now ÷ before', 'status before → now'],
      beforeAfterRows(results),
    ),
  );
  out.push('');
  out.push('Every server-CPU row and the process figures:\n');
  out.push(
    table(
      ['', 'before ÷ bare', 'now ÷ bare', 'now ÷ before'],
      CPU_ROWS.filter(
        ([, metric]) => results[metric]?.[BASELINE_KEY]?.length || results[metric]?.keel?.length,
      ).map(([label, metric]) => {
        const of = (key) => results[metric]?.[key];
        return [
          label,
          cell(ratios(metric, of(BASELINE_KEY), of('bare')), fmt.ratio),
          cell(ratios(metric, of('keel'), of('bare')), fmt.ratio),
          cell(ratios(metric, of('keel'), of(BASELINE_KEY)), fmt.ratio),
        ];
      }),
    ),
  );
  out.push('');
  return out;
}
