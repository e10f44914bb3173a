// Server lanes: our HTTP fixture server under the official suite (0.1.16 `--suite all`, the
// next-version lane: 0.2.0-alpha `--suite all --spec-version 2025-11-25`, and the report-only
// modern-server lane: the same with `--spec-version 2026-07-28`).
import { join } from 'node:path';
import { freePort, startFixtureServer } from '../lib/fixture-server.mjs';
import { judge, readResults } from '../lib/results.mjs';
import { formatVerdict, lastLines } from '../lib/report.mjs';
import { formatReportOnly, reportOnlyCounts, writeReportOnly } from '../lib/report-only.mjs';
import { listScenarios, runSuite } from './suite.mjs';

const LOG_TAIL_LINES = 60;

/**
 * Starts the fixture server once, runs the suite against it `repeat` times (each a fresh `-o` dir),
 * prints a report per run and stops the server. Returns whether every run passed; a `reportOnly`
 * lane prints and records its counts (`report-only.json`) instead and returns `reportOnly: true`.
 *
 * @example
 * const ok = await runServerLane(ctx, { name: 'server', suite: ctx.tools.suite, suiteArgs: ['--suite', 'all'], repeat: 3 });
 */
export async function runServerLane(
  ctx,
  {
    name,
    suite,
    suiteArgs,
    specVersion,
    each,
    repeat = 1,
    expected = new Set(),
    reportOnly = false,
    noSkips = false,
  },
) {
  const { options } = ctx;
  const started = Date.now();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const serverLog = join(ctx.logDir, `${ctx.stamp}-${name}-fixture-server.log`);
  ctx.log(`[${name}] starting \`${options.serverCommand}\` with PORT=${port} (log: ${serverLog})`);
  const server = await startFixtureServer(options.serverCommand, {
    port,
    url,
    logFile: serverLog,
    cwd: ctx.root,
  });
  const summaries = [];
  let ok = true;
  try {
    // `each`: one suite run per scenario `each.match` selects (scenarios the suite only runs when
    // named, e.g. extension scenarios outside the spec timeline; `each.extensions`: from those
    // `conformance list` tags [extension]).
    const listed = options.scenario
      ? undefined
      : await listScenarios(ctx, suite, 'server', specVersion, { extensions: each?.extensions });
    const scenarios = options.scenario ? [options.scenario] : each ? listed.filter(each.match) : listed;
    if (scenarios.length === 0) throw new Error(`no scenario selected (${each?.label})`);
    const selections = options.scenario
      ? [['--scenario', options.scenario, ...(each?.args ?? [])]]
      : each
        ? scenarios.map((scenario) => ['--scenario', scenario, ...each.args])
        : [suiteArgs];
    const selection =
      each && !options.scenario ? [`${each.label} (${scenarios.length})`, ...each.args] : selections[0];
    for (let run = 1; run <= repeat; run += 1) {
      const label = repeat > 1 ? `${name} run ${run}/${repeat}` : name;
      const tag = `${ctx.stamp}-${name}-run${run}`;
      const outputDir = join(ctx.resultsDir, tag);
      let result;
      for (const [index, args] of selections.entries()) {
        const part = selections.length > 1 ? `-${index + 1}` : '';
        const one = await runSuite(ctx, suite, ['server', '--url', url, ...args], {
          outputDir,
          logFile: join(ctx.logDir, `${tag}${part}-suite.log`),
        });
        // The first failing exit is the run's (a later success must not hide it).
        if (result === undefined || (result.exit === 0 && one.exit !== 0)) result = one;
      }
      if (!server.handle.running) {
        ctx.print(`[${name}] the fixture server exited during the run (see its log below)`);
        ok = false;
      }
      const verdict = judge({
        results: readResults(outputDir),
        scenarios,
        expected,
        allowWarnings: options.allowWarnings,
        suiteExit: result.exit,
        noSkips,
      });
      const title = `${label}: conformance ${suite.version} server ${selection.join(' ')}`;
      if (reportOnly) {
        const counts = reportOnlyCounts(verdict);
        const durationMs = Date.now() - started;
        ctx.print(formatVerdict(title, verdict, { resultLine: formatReportOnly(counts) }));
        const record = writeReportOnly(outputDir, {
          lane: name,
          suite: suite.version,
          args: ['server', ...selection],
          durationMs,
          counts,
        });
        ctx.print(`results: ${outputDir} (summary: ${record})\nsuite log: ${result.logFile}`);
        summaries.push(`${label}: ${formatReportOnly(counts)} [${Math.round(durationMs / 1000)} s]`);
        continue;
      }
      ctx.print(formatVerdict(title, verdict));
      ctx.print(`results: ${outputDir}\nsuite log: ${result.logFile}`);
      const { success, failure, warning, skipped } = verdict.judgedTotals;
      const skips = noSkips ? `, ${skipped} skipped` : '';
      summaries.push(
        `${label}: ${success} passed, ${failure} failed, ${warning} warnings${skips} → ${verdict.ok ? 'PASS' : 'FAIL'}`,
      );
      ok = ok && verdict.ok;
    }
  } finally {
    const exit = await server.stop();
    if (exit.forced) {
      // Shutdown must be bounded (DESIGN guarantee 5/15): a server that needs SIGKILL fails the lane.
      ctx.print(`[${name}] the fixture server did not exit within 5 s of SIGTERM and was killed`);
      summaries.push(
        `${name}: fixture server needed SIGKILL → ${reportOnly ? 'noted (report-only)' : 'FAIL'}`,
      );
      ok = false;
    }
    if (!ok) {
      ctx.print(
        `\n[${name}] fixture server log (${serverLog}), last ${LOG_TAIL_LINES} lines:\n` +
          lastLines(server.handle.tail, LOG_TAIL_LINES),
      );
    }
  }
  return { ok, summaries, reportOnly };
}
