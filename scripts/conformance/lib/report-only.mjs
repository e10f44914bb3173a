// Report-only lanes (the 2026-07-28 revision, which Keel does not speak yet): their verdict is
// counted and recorded, never turned into a failure. These helpers turn a judged run into numbers,
// one line of text and a JSON record, and tally lane outcomes into the runner's exit code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Keel's client has no OAuth yet, so the `auth/*` client scenarios all fail; the issue's target is
// "every non-OAuth scenario passes", so the counts are also given without them.
const OAUTH_PREFIX = 'auth/';

function tally(rows) {
  const passing = rows.filter((row) => row.status === 'pass' || row.status === 'pass (warn)');
  const checks = rows.reduce(
    (sum, row) => ({
      passed: sum.passed + row.success,
      failed: sum.failed + row.failure,
      warnings: sum.warnings + row.warning,
    }),
    { passed: 0, failed: 0, warnings: 0 },
  );
  // The issue's yardstick ("47 of 119"): SUCCESS out of SUCCESS + FAILURE. A WARNING is neither
  // (fixed, it may become a SUCCESS or an INFO), so it is counted on its own.
  checks.total = checks.passed + checks.failed;
  return {
    checks,
    scenarios: { passed: passing.length, total: rows.length },
    passing: passing.map((row) => row.name),
    failing: rows.filter((row) => !passing.includes(row)).map((row) => row.name),
  };
}

/**
 * Counts of a judged report-only run: SUCCESS checks out of SUCCESS + FAILURE (warnings apart),
 * scenarios that passed (the judge's own rule: no failure, no warning unless allowed, ≥ 1 SUCCESS,
 * results written), their names, and the same counts without the OAuth (`auth/*`) scenarios when
 * there are any.
 *
 * @example
 * const counts = reportOnlyCounts(verdict);
 * counts.checks; // { passed: 47, failed: 72, warnings: 5, total: 119 }
 */
export function reportOnlyCounts(verdict) {
  const all = tally(verdict.rows);
  const withoutOAuth = verdict.rows.filter((row) => !row.name.startsWith(OAUTH_PREFIX));
  if (withoutOAuth.length === verdict.rows.length) return all;
  return { ...all, withoutOAuth: tally(withoutOAuth) };
}

const describe = ({ checks, scenarios }) =>
  `${checks.passed} of ${checks.total} checks pass (+${checks.warnings} warnings), ` +
  `${scenarios.passed} of ${scenarios.total} scenarios pass`;

/**
 * The one line a report-only run ends with (and the runner's summary repeats).
 *
 * @example
 * formatReportOnly(counts);
 * // 'report-only: 47 of 119 checks pass (+5 warnings), 2 of 40 scenarios pass (does not fail the run)'
 */
export function formatReportOnly(counts) {
  const withoutOAuth = counts.withoutOAuth ? `; without auth/*: ${describe(counts.withoutOAuth)}` : '';
  return `report-only: ${describe(counts)}${withoutOAuth} (does not fail the run)`;
}

/**
 * Writes `report-only.json` (lane, suite version and arguments, duration, counts, passing and
 * failing scenario names) into a run's results folder, beside the suite's own `checks.json` folders.
 * Returns the file's path.
 *
 * @example
 * writeReportOnly(outputDir, { lane: 'modern-server', suite: '0.2.0-alpha.12', args, durationMs, counts });
 */
export function writeReportOnly(outputDir, { lane, suite, args, durationMs, counts }) {
  // The suite may have died before creating its output folder; the record is wanted all the more.
  mkdirSync(outputDir, { recursive: true });
  const file = join(outputDir, 'report-only.json');
  const record = { lane, reportOnly: true, suite, args, durationMs, ...counts };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

/**
 * Tallies lane outcomes (`{ lane, ok, reportOnly?, summaries }`) into the runner's last line and
 * exit code: a report-only lane is listed apart and never changes the exit code, whatever happened
 * in it (a lane error included); 0 when every judged lane passed.
 *
 * @example
 * tallyOutcomes([{ lane: 'server', ok: true }, { lane: 'modern-server', ok: false, reportOnly: true }]);
 * // { line: 'lanes: 1 passed, 0 failed, 1 report-only', exitCode: 0 }
 */
export function tallyOutcomes(outcomes) {
  const judged = outcomes.filter((outcome) => !outcome.reportOnly);
  const passed = judged.filter((outcome) => outcome.ok).length;
  const reportOnly = outcomes.length - judged.length;
  const line =
    `lanes: ${passed} passed, ${judged.length - passed} failed` +
    (reportOnly > 0 ? `, ${reportOnly} report-only` : '');
  return { line, exitCode: passed === judged.length ? 0 : 1 };
}
