// Client lanes: the official suite's mock servers against our fixture client (0.1.16 `--suite all`,
// with the expected-failures baseline; and the report-only modern-client lane: 0.2.0-alpha.12
// `--suite all --spec-version 2026-07-28`), inside a loopback-only network namespace when possible.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { detectLoopbackNamespace } from '../lib/netns.mjs';
import { judge, readResults } from '../lib/results.mjs';
import { formatVerdict } from '../lib/report.mjs';
import { formatReportOnly, reportOnlyCounts, writeReportOnly } from '../lib/report-only.mjs';
import { listScenarios, runSuite } from './suite.mjs';

// Checks that measure wall-clock timing on the client side. The suite runs all 26 client scenarios
// at once, so on a 2-core machine these can miss their window from CPU load alone (sse-retry wants
// the reconnecting GET 450-700 ms after the stream closed; under load we saw 770-800 ms).
const TIMING_CHECKS = { 'sse-retry': ['client-sse-retry-timing'] };
const TIMING_RERUNS = 2;

/**
 * For a scenario whose only problems are timing checks, runs it again on its own (up to twice). A
 * clean isolated run replaces the parallel result in `results`; the returned notes say so, with
 * both measurements. A real timing bug (too early, or late when alone) still fails.
 *
 * @example
 * const notes = await rerunTimingAlone(ctx, results, { command: 'npm run --silent fixture:client' });
 */
async function rerunTimingAlone(ctx, results, { name, suite, suiteFlags, command, netnsFlags }) {
  const notes = [];
  for (const [scenario, timingIds] of Object.entries(TIMING_CHECKS)) {
    const parallel = results.get(scenario);
    const problems = parallel ? [...parallel.failures, ...parallel.warnings] : [];
    if (problems.length === 0 || !problems.every((check) => timingIds.includes(check.id))) continue;
    const measured = problems.map((check) => `${check.id}: ${check.errorMessage}`).join('; ');
    for (let attempt = 1; attempt <= TIMING_RERUNS; attempt += 1) {
      const tag = `${ctx.stamp}-${name}-${scenario.replace(/\W/g, '_')}-alone${attempt}`;
      const outputDir = join(ctx.resultsDir, tag);
      const single = ['client', '--command', command, '--scenario', scenario, ...suiteFlags];
      await runSuite(ctx, suite, single, {
        outputDir,
        logFile: join(ctx.logDir, `${tag}-suite.log`),
        netnsFlags,
      });
      const alone = readResults(outputDir).get(scenario);
      if (alone && alone.failure === 0 && alone.warning === 0 && alone.success > 0) {
        results.set(scenario, alone);
        notes.push({
          scenario,
          cleared: true,
          text:
            `[${name}] NOTE: ${scenario} missed a timing window in the parallel run (${measured}); ` +
            `run alone (attempt ${attempt}) it passed cleanly: ${outputDir}`,
        });
        break;
      }
      if (attempt === TIMING_RERUNS) {
        notes.push({
          scenario,
          cleared: false,
          text: `[${name}] ${scenario}: timing problem in the parallel run (${measured}) and again when run alone: ${outputDir}`,
        });
      }
    }
  }
  return notes;
}

/**
 * Runs the client suite and prints its report. Returns whether it passed. With no lane settings it
 * is the `client` lane (suite 0.1.16, the expected-failures baseline); `modern-client` passes its
 * suite and spec version and `reportOnly` (no baseline: it prints and records its counts instead).
 *
 * @example
 * const { ok } = await runClientLane(ctx);
 */
export async function runClientLane(
  ctx,
  {
    name = 'client',
    suite = ctx.tools.suite,
    specVersion,
    reportOnly = false,
    baselineFile = ctx.options.expectedFailures,
    expected = ctx.baseline.client,
    each,
    noSkips = false,
  } = {},
) {
  const { options } = ctx;
  const started = Date.now();
  let netnsFlags;
  if (options.netns) {
    const namespace = detectLoopbackNamespace();
    if (namespace.flags) {
      netnsFlags = namespace.flags;
      ctx.log(`[${name}] isolated: unshare ${namespace.flags.join(' ')} (loopback only)`);
    } else {
      ctx.print(
        `[${name}] NOTE: running WITHOUT network isolation: ${namespace.reason}. The suite's mock servers ` +
          'bind every interface for the run; the client only contacts the localhost URL it is given.',
      );
    }
  } else {
    ctx.print(`[${name}] NOTE: network isolation disabled (--no-netns)`);
  }
  const suiteFlags = specVersion ? ['--spec-version', specVersion] : [];
  const listed = options.scenario
    ? [options.scenario]
    : await listScenarios(ctx, suite, 'client', specVersion, { extensions: each?.extensions });
  // `each`: one suite run per selected scenario (extension scenarios run only when named).
  const scenarios = each && !options.scenario ? listed.filter(each.match) : listed;
  const args = ['client', '--command', options.clientCommand];
  if (options.scenario) args.push('--scenario', options.scenario, ...suiteFlags, ...(each?.args ?? []));
  else if (!each) {
    args.push('--suite', 'all', ...suiteFlags);
    // The suite enforces the baseline too (stale entries fail); only suite runs accept the flag. A
    // report-only lane has none, so the suite reports every scenario.
    if (!reportOnly && existsSync(baselineFile)) args.push('--expected-failures', baselineFile);
  }
  const runs =
    each && !options.scenario
      ? scenarios.map((scenario) => [...args, '--scenario', scenario, ...suiteFlags, ...each.args])
      : [args];
  const tag = `${ctx.stamp}-${name}`;
  const outputDir = join(ctx.resultsDir, tag);
  let result;
  for (const [index, runArgs] of runs.entries()) {
    const part = runs.length > 1 ? `-${index + 1}` : '';
    const one = await runSuite(ctx, suite, runArgs, {
      outputDir,
      logFile: join(ctx.logDir, `${tag}${part}-suite.log`),
      netnsFlags,
    });
    // The first failing exit is the run's (a later success must not hide it).
    if (result === undefined || (result.exit === 0 && one.exit !== 0)) result = one;
  }
  const results = readResults(outputDir);
  const notes =
    options.scenario || each
      ? []
      : await rerunTimingAlone(ctx, results, {
          name,
          suite,
          suiteFlags,
          command: options.clientCommand,
          netnsFlags,
        });
  const verdict = judge({
    results,
    scenarios,
    // A single-scenario run is for details: judge it without the baseline.
    expected: options.scenario || reportOnly ? new Set() : expected,
    allowWarnings: options.allowWarnings,
    // The suite's exit 1 came from the timing check that the isolated re-run has since cleared.
    suiteExit: notes.some((note) => note.cleared) && result.exit === 1 ? 0 : result.exit,
    noSkips,
  });
  const selection = [
    ...(options.scenario
      ? ['--scenario', options.scenario]
      : each
        ? [`--scenario <each of ${scenarios.length}>`, ...each.args]
        : ['--suite', 'all']),
    ...suiteFlags,
  ].join(' ');
  const title = `${name}: conformance ${suite.version} client ${selection}, command: ${options.clientCommand}`;
  const counts = reportOnly ? reportOnlyCounts(verdict) : undefined;
  ctx.print(formatVerdict(title, verdict, { resultLine: counts && formatReportOnly(counts) }));
  for (const note of notes) ctx.print(note.text);
  ctx.print(
    `results (each scenario's client stdout.txt/stderr.txt are there): ${outputDir}\nsuite log: ${result.logFile}`,
  );
  if (counts) {
    const durationMs = Date.now() - started;
    const record = writeReportOnly(outputDir, {
      lane: name,
      suite: suite.version,
      args: ['client', ...selection.split(' ')],
      durationMs,
      counts,
    });
    ctx.print(`summary: ${record}`);
    return {
      ok: verdict.ok,
      reportOnly: true,
      summaries: [`${name}: ${formatReportOnly(counts)} [${Math.round(durationMs / 1000)} s]`],
    };
  }
  const { success, failure, warning, skipped } = verdict.judgedTotals;
  const skips = noSkips ? `, ${skipped} skipped` : '';
  const excused = verdict.expectedScenarios;
  const rerun = notes.filter((note) => note.cleared).map((note) => note.scenario);
  return {
    ok: verdict.ok,
    summaries: [
      `${name}: ${success} passed, ${failure} failed, ${warning} warnings${skips} (+${excused} expected-failure scenarios)` +
        (rerun.length > 0 ? ` [timing re-run alone: ${rerun.join(', ')}]` : '') +
        ` → ${verdict.ok ? 'PASS' : 'FAIL'}`,
    ],
  };
}
