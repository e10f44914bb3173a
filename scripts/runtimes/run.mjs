// Runtime smoke matrix (issue 13): serves the built web handler on each pinned runtime and drives it
// from this Node with Keel's client. Usage:
//   node scripts/runtimes/run.mjs [--only node22,bun] [--tests] [--no-build]
// --tests also runs the core vitest subset on Node 22 and 24. Exit code 1 when anything failed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installExitHandlers, runToCompletion, stopChild } from '../conformance/lib/children.mjs';
import { driveSmoke } from './lib/drive.mjs';
import { ensureRuntime, RUNTIMES } from './lib/install.mjs';
import { commandFor, startServer } from './lib/launch.mjs';
import { formatMatrix } from './lib/matrix.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cacheDir = join(root, '.runtimes');
const logDir = join(cacheDir, 'logs');
const START_TIMEOUT_MS = 30_000;
const TESTS_TIMEOUT_MS = 10 * 60_000;
const VITEST_SUBSET = ['test/core', 'test/server-api', 'test/http-server'];

function parseArgs(argv) {
  const options = { only: Object.keys(RUNTIMES), tests: false, build: true };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === '--tests') options.tests = true;
    else if (arg === '--no-build') options.build = false;
    else if (arg === '--only') options.only = (argv[++index] ?? '').split(',').filter(Boolean);
    else
      throw new Error(`unknown argument ${arg}; usage: run.mjs [--only node22,bun] [--tests] [--no-build]`);
  }
  for (const name of options.only) if (!RUNTIMES[name]) throw new Error(`unknown runtime "${name}"`);
  return options;
}

const log = (line) => console.error(`[runtimes] ${line}`);

async function smoke(name) {
  const row = { runtime: name, version: RUNTIMES[name].version };
  let handle;
  try {
    const installing = Date.now();
    const bin = await ensureRuntime(cacheDir, name, { logDir, log });
    log(`${name}: ready in ${Date.now() - installing} ms`);
    const launch = await commandFor(name, bin, { root, cacheDir });
    const started = await startServer(launch, {
      cwd: root,
      logFile: join(logDir, `${name}.log`),
      timeoutMs: START_TIMEOUT_MS,
    });
    handle = started.handle;
    const began = Date.now();
    // A Worker isolate keeps no legacy session between requests (see docs/runtimes.md).
    row.results = await driveSmoke(started.url, { sessions: name !== 'workerd' });
    log(`${name}: scenario took ${Date.now() - began} ms`);
  } catch (error) {
    handle ??= error.handle;
    row.error = error instanceof Error ? error.message : String(error);
  } finally {
    if (handle) await stopChild(handle, 3_000);
  }
  return row;
}

async function vitestOn(name) {
  const bin = await ensureRuntime(cacheDir, name, { logDir, log });
  const began = Date.now();
  const vitest = join(root, 'node_modules/vitest/vitest.mjs');
  const result = await runToCompletion(bin, [vitest, 'run', ...VITEST_SUBSET], {
    cwd: root,
    timeoutMs: TESTS_TIMEOUT_MS,
    logFile: join(logDir, `vitest-${name}.log`),
  });
  const seconds = ((Date.now() - began) / 1000).toFixed(0);
  const ok = !result.timedOut && result.code === 0;
  log(
    `vitest ${VITEST_SUBSET.join(' ')} on ${name}: ${ok ? 'pass' : 'FAIL'} in ${seconds} s (log ${result.logFile})`,
  );
  if (!ok) console.error(result.tail);
  return ok;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  installExitHandlers();
  if (options.build || !existsSync(join(root, 'dist/src/index.js'))) {
    const built = await runToCompletion('npm', ['run', '--silent', 'build'], {
      cwd: root,
      timeoutMs: 5 * 60_000,
      logFile: join(logDir, 'build.log'),
    });
    if (built.code !== 0) throw new Error(`build failed:\n${built.tail}`);
  }
  const rows = [];
  for (const name of options.only) rows.push(await smoke(name));
  const matrix = formatMatrix(rows);
  console.log(matrix.text);
  let ok = matrix.ok;
  if (options.tests) for (const name of ['node22', 'node24']) ok = (await vitestOn(name)) && ok;
  process.exitCode = ok ? 0 : 1;
}

main().catch((error) => {
  console.error(`[runtimes] ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
});
