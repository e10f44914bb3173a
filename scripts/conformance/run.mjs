#!/usr/bin/env node
// Entry point of the conformance runner: `npm run conformance -- --lane all`. Plain Node ESM so it
// runs without a build on Node 20; the suite itself runs on a pinned Node 22 (see lib/tools.mjs).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installExitHandlers, runToCompletion } from './lib/children.mjs';
import { loadBaseline } from './lib/baseline.mjs';
import { parseOptions, REPORT_ONLY_LANES, USAGE, UsageError } from './lib/options.mjs';
import { ensureNode22, ensureTool, packageDir, TOOLS } from './lib/tools.mjs';
import { tallyOutcomes } from './lib/report-only.mjs';
import { runServerLane } from './lanes/server-lane.mjs';
import { runClientLane } from './lanes/client-lane.mjs';
import { runSmokeLane } from './lanes/smoke-lane.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD_TIMEOUT_MS = 5 * 60_000;

async function installTools(ctx) {
  const { lanes } = ctx.options;
  const install = { log: ctx.log, logDir: ctx.logDir };
  const tool = async (spec) => ({
    bin: await ensureTool(ctx.cacheDir, spec, install),
    dir: packageDir(ctx.cacheDir, spec),
    version: spec.version,
  });
  const tools = {};
  if (lanes.some((lane) => lane !== 'smoke')) tools.node22 = await ensureNode22(ctx.cacheDir, install);
  // The 0.1.16 package is also where the baseline's YAML parser comes from.
  tools.suite = await tool(TOOLS.suite);
  // One 0.2.0-alpha.12 install serves the next lane and both report-only 2026-07-28 lanes.
  if (
    lanes.some(
      (lane) => ['next', 'tasks', 'ext-server', 'ext-client'].includes(lane) || lane.startsWith('modern-'),
    )
  )
    tools.nextSuite = await tool(TOOLS.nextSuite);
  if (lanes.includes('smoke')) tools.inspector = await tool(TOOLS.inspector);
  return tools;
}

async function build(ctx) {
  ctx.log('$ npm run --silent build');
  const result = await runToCompletion('npm', ['run', '--silent', 'build'], {
    cwd: ROOT,
    timeoutMs: BUILD_TIMEOUT_MS,
    logFile: join(ctx.logDir, `${ctx.stamp}-build.log`),
  });
  if (result.timedOut || result.code !== 0) {
    throw new Error(
      `npm run build failed (${result.timedOut ? 'timeout' : `exit ${result.code}`}):\n${result.tail}`,
    );
  }
}

/** Fails early, with a useful message, when a default fixture command points at nothing. */
function checkFixtures(ctx, lane) {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts ?? {};
  const needScript = (command, name) => {
    if (command.startsWith(`npm run --silent ${name}`) && !scripts[name]) {
      throw new Error(
        `package.json has no "${name}" script (the default for this lane); pass another command`,
      );
    }
  };
  const clientLane = lane === 'client' || lane === 'modern-client' || lane === 'ext-client';
  if (!clientLane) needScript(ctx.options.serverCommand, 'fixture:http');
  if (clientLane) needScript(ctx.options.clientCommand, 'fixture:client');
  if (lane === 'smoke') {
    const file = ctx.options.stdioCommand.split(/\s+/)[1];
    if (file && !existsSync(resolve(ROOT, file)))
      throw new Error(`stdio fixture ${file} does not exist (built?)`);
  }
}

const LANE_RUNNERS = {
  server: (ctx) =>
    runServerLane(ctx, {
      name: 'server',
      suite: ctx.tools.suite,
      suiteArgs: ['--suite', 'all'],
      repeat: ctx.options.repeat,
      expected: ctx.baseline.server,
    }),
  client: (ctx) => runClientLane(ctx),
  next: (ctx) =>
    runServerLane(ctx, {
      name: 'next',
      suite: ctx.tools.nextSuite,
      suiteArgs: ['--suite', 'all', '--spec-version', '2025-11-25'],
      specVersion: '2025-11-25',
    }),
  smoke: (ctx) => runSmokeLane(ctx),
  // The 2026-07-28 server: stateless, so --repeat mostly proves nothing leaks between runs.
  'modern-server': (ctx) =>
    runServerLane(ctx, {
      name: 'modern-server',
      suite: ctx.tools.nextSuite,
      suiteArgs: ['--suite', 'all', '--spec-version', '2026-07-28'],
      specVersion: '2026-07-28',
      repeat: ctx.options.repeat,
    }),
  // The tasks extension (SEP-2663): its scenarios are outside the spec timeline, so they run one
  // by one with --force and no --spec-version (they then speak 2026-07-28).
  tasks: (ctx) =>
    runServerLane(ctx, {
      name: 'tasks',
      suite: ctx.tools.nextSuite,
      each: { label: 'tasks-*', match: (name) => name.startsWith('tasks-'), args: ['--force'] },
      repeat: ctx.options.repeat,
      // Its only check is SKIPPED ("pending subscriptions/listen rewrite"): listed so a pass shows as STALE.
      expected: new Set(['tasks-status-notifications']),
    }),
  // Issue 27: every other extension scenario (skills, SEP-2640) against the HTTP fixture, one by
  // one with --force; judged strictly: a SKIPPED check fails the lane (it verified nothing).
  'ext-server': (ctx) =>
    runServerLane(ctx, {
      name: 'ext-server',
      suite: ctx.tools.nextSuite,
      each: {
        label: '[extension] but tasks-*',
        extensions: true,
        match: (name) => !name.startsWith('tasks-'),
        args: ['--force'],
      },
      repeat: ctx.options.repeat,
      noSkips: true,
    }),
  // Issue 27: the extension scenarios against the fixture client (authorization extensions, skills),
  // one suite run per scenario, strict as ext-server.
  'ext-client': (ctx) =>
    runClientLane(ctx, {
      name: 'ext-client',
      suite: ctx.tools.nextSuite,
      each: { extensions: true, match: (name) => !name.startsWith('tasks-'), args: ['--force'] },
      noSkips: true,
    }),
  // Report-only (see lib/report-only.mjs) until Keel's client passes it. Run once, no --repeat.
  'modern-client': (ctx) =>
    runClientLane(ctx, {
      name: 'modern-client',
      suite: ctx.tools.nextSuite,
      specVersion: '2026-07-28',
      reportOnly: REPORT_ONLY.has('modern-client'),
      baselineFile: ctx.options.expectedFailuresModern,
      expected: ctx.modernBaseline.client,
    }),
};

const REPORT_ONLY = new Set(REPORT_ONLY_LANES);

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`conformance runner: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  installExitHandlers();
  const cacheDir = join(ROOT, '.conformance');
  const ctx = {
    root: ROOT,
    cacheDir,
    logDir: join(cacheDir, 'logs'),
    resultsDir: join(cacheDir, 'results'),
    stamp: new Date().toISOString().replace(/[:.]/g, '-'),
    options: {
      ...options,
      expectedFailures: resolve(ROOT, options.expectedFailures),
      expectedFailuresModern: resolve(ROOT, options.expectedFailuresModern),
    },
    log: (message) => console.log(`· ${message}`),
    print: (message) => console.log(message),
  };
  mkdirSync(ctx.logDir, { recursive: true });
  mkdirSync(ctx.resultsDir, { recursive: true });
  try {
    ctx.tools = await installTools(ctx);
    ctx.baseline = await loadBaseline(ctx.options.expectedFailures, ctx.tools.suite.dir);
    ctx.modernBaseline = await loadBaseline(ctx.options.expectedFailuresModern, ctx.tools.suite.dir);
    if (options.build) await build(ctx);
  } catch (error) {
    console.error(`\nconformance runner: ${error.message}`);
    return 1;
  }
  const outcomes = [];
  for (const lane of options.lanes) {
    try {
      checkFixtures(ctx, lane);
      outcomes.push({ lane, ...(await LANE_RUNNERS[lane](ctx)) });
    } catch (error) {
      console.error(`\n[${lane}] lane error: ${error.message}`);
      const reportOnly = REPORT_ONLY.has(lane);
      const note = reportOnly ? ' (report-only, does not fail the run)' : '';
      outcomes.push({
        lane,
        ok: false,
        reportOnly,
        summaries: [`${lane}: ERROR ${error.message.split('\n')[0]}${note}`],
      });
    }
  }
  console.log('\n══ conformance summary ══');
  for (const outcome of outcomes) for (const line of outcome.summaries) console.log(`  ${line}`);
  const { line, exitCode } = tallyOutcomes(outcomes);
  console.log(line);
  return exitCode;
}

// Exit explicitly: an idle keep-alive socket from the readiness probe must not hold the runner open.
process.exit(await main());
