// Client lane: the official suite's mock servers against our fixture client (0.1.16 `--suite all`),
// with the expected-failures baseline, inside a loopback-only network namespace when possible.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { detectLoopbackNamespace } from '../lib/netns.mjs';
import { judge, readResults } from '../lib/results.mjs';
import { formatVerdict } from '../lib/report.mjs';
import { listScenarios, runSuite } from './suite.mjs';

/**
 * Runs the client suite and prints its report. Returns whether it passed.
 *
 * @example
 * const { ok } = await runClientLane(ctx);
 */
export async function runClientLane(ctx) {
  const { options } = ctx;
  const suite = ctx.tools.suite;
  let netnsFlags;
  if (options.netns) {
    const namespace = detectLoopbackNamespace();
    if (namespace.flags) {
      netnsFlags = namespace.flags;
      ctx.log(`[client] isolated: unshare ${namespace.flags.join(' ')} (loopback only)`);
    } else {
      ctx.print(
        `[client] NOTE: running WITHOUT network isolation: ${namespace.reason}. The suite's mock servers ` +
          'bind every interface for the run; the client only contacts the localhost URL it is given.',
      );
    }
  } else {
    ctx.print('[client] NOTE: network isolation disabled (--no-netns)');
  }
  const scenarios = options.scenario ? [options.scenario] : await listScenarios(ctx, suite, 'client');
  const args = ['client', '--command', options.clientCommand];
  if (options.scenario) args.push('--scenario', options.scenario);
  else {
    args.push('--suite', 'all');
    // The suite enforces the baseline too (stale entries fail); only suite runs accept the flag.
    if (existsSync(options.expectedFailures)) args.push('--expected-failures', options.expectedFailures);
  }
  const tag = `${ctx.stamp}-client`;
  const outputDir = join(ctx.resultsDir, tag);
  const result = await runSuite(ctx, suite, args, {
    outputDir,
    logFile: join(ctx.logDir, `${tag}-suite.log`),
    netnsFlags,
  });
  const verdict = judge({
    results: readResults(outputDir),
    scenarios,
    // A single-scenario run is for details: judge it without the baseline.
    expected: options.scenario ? new Set() : ctx.baseline.client,
    allowWarnings: options.allowWarnings,
    suiteExit: result.exit,
  });
  const selection = options.scenario ? `--scenario ${options.scenario}` : '--suite all';
  ctx.print(
    formatVerdict(
      `client: conformance ${suite.version} client ${selection}, command: ${options.clientCommand}`,
      verdict,
    ),
  );
  ctx.print(
    `results (each scenario's client stdout.txt/stderr.txt are there): ${outputDir}\nsuite log: ${result.logFile}`,
  );
  const { success, failure, warning } = verdict.judgedTotals;
  const excused = verdict.expectedScenarios;
  return {
    ok: verdict.ok,
    summaries: [
      `client: ${success} passed, ${failure} failed, ${warning} warnings (+${excused} expected-failure scenarios) → ${verdict.ok ? 'PASS' : 'FAIL'}`,
    ],
  };
}
