// Running the conformance suite itself (under Node 22) and listing its scenarios.
import { join } from 'node:path';
import { runToCompletion } from '../lib/children.mjs';
import { parseExtensionScenarios, parseScenarioList } from '../lib/results.mjs';
import { wrapInNamespace } from '../lib/netns.mjs';

const SUITE_TIMEOUT_MS = 10 * 60_000;

/**
 * Scenario names the suite would run in a mode (`server` or `client`), optionally filtered by spec
 * version: the yardstick for "every scenario wrote results".
 *
 * @example
 * const names = await listScenarios(ctx, ctx.tools.suite, 'server');
 * const extensionOnly = await listScenarios(ctx, ctx.tools.nextSuite, 'client', undefined, { extensions: true });
 */
export async function listScenarios(ctx, suite, mode, specVersion, { extensions = false } = {}) {
  const args = [suite.bin, 'list', `--${mode}`, ...(specVersion ? ['--spec-version', specVersion] : [])];
  const result = await runToCompletion(ctx.tools.node22, args, {
    cwd: ctx.root,
    timeoutMs: 60_000,
    captureStdout: true,
    logFile: join(ctx.logDir, `${ctx.stamp}-list-${mode}-${suite.version}.log`),
  });
  if (result.code !== 0) throw new Error(`conformance list failed (exit ${result.code}):\n${result.tail}`);
  return extensions ? parseExtensionScenarios(result.stdout) : parseScenarioList(result.stdout);
}

/**
 * Runs `conformance <args> -o <outputDir>` under Node 22, optionally inside a loopback-only network
 * namespace, bounded to 10 minutes. Its output goes to `logFile` (and the terminal with `echo`).
 *
 * @example
 * const run = await runSuite(ctx, ctx.tools.suite, ['server', '--url', url, '--suite', 'all'], { outputDir, logFile });
 */
export async function runSuite(ctx, suite, args, { outputDir, logFile, netnsFlags }) {
  let command = ctx.tools.node22;
  let commandArgs = [suite.bin, ...args, '-o', outputDir];
  if (netnsFlags) [command, commandArgs] = wrapInNamespace(netnsFlags, command, commandArgs);
  ctx.log(
    `$ ${[command, ...commandArgs].map((part) => (/\s/.test(part) ? JSON.stringify(part) : part)).join(' ')}`,
  );
  const result = await runToCompletion(command, commandArgs, {
    cwd: ctx.root,
    timeoutMs: SUITE_TIMEOUT_MS,
    logFile,
    echo: ctx.options.verbose,
  });
  if (result.timedOut)
    ctx.log(`the suite did not finish within ${SUITE_TIMEOUT_MS / 60_000} minutes and was killed`);
  const exit = result.timedOut ? 'timeout' : (result.code ?? `signal ${result.signal}`);
  return { exit, tail: result.tail, logFile };
}
