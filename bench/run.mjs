// `npm run bench`: Keel vs the official SDK (1.x and v2) vs the bare-transport limit, each in the
// setups listed in lib/setups.mjs, measured in one run, interleaved (A B C … A B C …), then a
// CPU-profile pass of Keel; writes BENCHMARKS.md.
//
// `--report-only` rewrites BENCHMARKS.md from the last run's bench/.work/results.json.
// Environment: BENCH_REPS (default 3, at least 3 for a report), BENCH_SCALE (window size factor,
// default 1), BENCH_ONLY (comma-separated phase names, for development), BENCH_SETUPS
// (comma-separated setup keys from lib/setups.mjs, for development), BENCH_PROFILES (comma-separated
// profile keys from lib/profile-pass.mjs, for development), BENCH_OUT (report path),
// BENCH_BASELINE (a git ref: adds the setup `keelBefore`, the default Keel server built from that
// ref, see lib/baseline.mjs; with BENCH_SETUPS it runs only if `keelBefore` is listed).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { modernPhase } from './lib/modern-phase.mjs';
import { httpPhase, scaleWindows, sessionsPhase, spawnPhase, stdioPhase } from './lib/phases.mjs';
import { BASELINE_KEY, baselineSetup, prepareBaseline } from './lib/baseline.mjs';
import { machine } from './lib/proc.mjs';
import { benchSetups } from './lib/setups.mjs';
import { profilePhase } from './lib/profile-pass.mjs';
import { writeReport } from './lib/report.mjs';
import { prepareRuntimeSetups } from './lib/runtime-setups.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bench = join(root, 'bench');
const reps = Math.max(1, Number(process.env.BENCH_REPS ?? 3));
const scale = Number(process.env.BENCH_SCALE ?? 1);
if (scale !== 1) scaleWindows(scale);
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const started = performance.now();

const { servers: defaultServers, entries } = benchSetups(root);
// BENCH_SETUPS (comma-separated setup keys, for development) runs only some setups.
const setupKeys = process.env.BENCH_SETUPS ? new Set(process.env.BENCH_SETUPS.split(',')) : undefined;

/** The setups with the baseline (if any) right after Keel's default one: its rows sit next to it. */
function withBaseline(servers, baseline) {
  if (!baseline) return servers;
  const at = servers.findIndex((server) => server.key === 'keel') + 1;
  return [...servers.slice(0, at), baseline, ...servers.slice(at)];
}

// results[metric][serverKey]: a single value lands at its repetition's index (so per-repetition
// ratios pair values of the same round); a list of samples (spawn, import) is appended.
const results = {};
const errors = [];
const loads = [];
function record(serverKey, values, rep) {
  for (const [metric, value] of Object.entries(values)) {
    const perServer = (results[metric] ??= {});
    const list = (perServer[serverKey] ??= []);
    if (Array.isArray(value)) list.push(...value);
    else list[rep - 1] = value;
  }
}

function log(message) {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

/** Runs `run` for every setup that `applies` to the phase, interleaved, `reps` times. */
async function interleaved(name, applies, run) {
  if (only && !only.has(name)) return;
  loads.push({ phase: name, load: loadavg()[0] });
  for (let rep = 1; rep <= reps; rep++) {
    for (const server of servers.filter(applies)) {
      const t0 = performance.now();
      try {
        const values = await run(server, rep);
        if (values) record(server.key, values, rep);
        log(`${name} rep ${rep}/${reps} ${server.key} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (error) {
        errors.push({ phase: name, server: server.key, rep, message: String(error?.message ?? error) });
        log(`${name} rep ${rep}/${reps} ${server.key} FAILED: ${error?.message ?? error}`);
      }
    }
  }
}

function probe(script, specifier) {
  const args = [join(bench, 'lib', script), specifier];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: root, timeout: 60_000 }).toString());
}

// `node bench/run.mjs --report-only`: rewrite the report from the last run's results.json.
if (process.argv.includes('--report-only')) {
  const saved = JSON.parse(readFileSync(join(bench, '.work', 'results.json'), 'utf8'));
  const out = process.env.BENCH_OUT ?? join(root, 'BENCHMARKS.md');
  const baseline = saved.info.baseline && baselineSetup(saved.info.baseline);
  await writeReport(out, { ...saved, servers: withBaseline(defaultServers, baseline), entries });
  log(`rewrote ${out} from bench/.work/results.json`);
  process.exit(0);
}

log(`${reps} repetitions, window scale ${scale}`);
// BENCH_BASELINE: build the ref's Keel first; its worktree goes away at the end, on failure, or on
// SIGINT/SIGTERM (the handlers exit with the usual 128 + signal number).
let baseline;
const baselineRef = process.env.BENCH_BASELINE;
if (baselineRef && (!setupKeys || setupKeys.has(BASELINE_KEY))) {
  const onCleanup = (cleanup) => {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ])
      process.once(signal, () => {
        cleanup();
        process.exit(code);
      });
  };
  try {
    baseline = await prepareBaseline(root, baselineRef, { log, onCleanup });
  } catch (error) {
    // Asked for before/after: a run without the baseline is not what was asked for.
    log(`${error?.message ?? error}; nothing measured`);
    process.exit(1);
  }
} else if (setupKeys?.has(BASELINE_KEY)) {
  log(`${BASELINE_KEY} left out: BENCH_BASELINE (a git ref) is not set`);
}
const allServers = withBaseline(defaultServers, baseline?.setup);
const chosen = setupKeys ? allServers.filter((server) => setupKeys.has(server.key)) : allServers;
let servers = [];
try {
  // Bun and Deno come from the runtime matrix's installer; a setup whose runtime cannot be installed
  // is left out, and the report says why.
  const prepared = await prepareRuntimeSetups(chosen, { root, log });
  servers = prepared.servers;
  const { skipped } = prepared;
  await interleaved(
    'stdio',
    (server) => server.stdio,
    (server) => stdioPhase(server.stdio),
  );
  await interleaved(
    'http',
    (server) => server.http,
    (server) =>
      httpPhase(server.http, { stateless: false, prefix: 'http', sampling: server.sampling !== false }),
  );
  await interleaved(
    'stateless',
    (server) => server.stateless,
    (server) => httpPhase(server.stateless, { stateless: true, prefix: 'stateless' }),
  );
  await interleaved(
    'modern',
    (server) => server.modern,
    (server) => modernPhase(server.modern, { tasks: server.tasks === true }),
  );
  await interleaved(
    'sessions',
    (server) => server.memory && server.http,
    (server) => sessionsPhase(server.http),
  );
  await interleaved(
    'spawn',
    (server) => server.stdio,
    (server) => spawnPhase(server.stdio, 3),
  );

  const modules = {};
  if (!only || only.has('import')) {
    loads.push({ phase: 'import', load: loadavg()[0] });
    for (let rep = 1; rep <= reps; rep++) {
      for (const entry of entries) {
        try {
          const samples = [];
          for (let i = 0; i < 3; i++) samples.push(probe('import-probe.mjs', entry.specifier).ms);
          record(entry.key, { 'import.ms': samples }, rep);
        } catch (error) {
          errors.push({ phase: 'import', server: entry.key, rep, message: String(error?.message ?? error) });
        }
      }
    }
    for (const entry of entries) {
      try {
        modules[entry.key] = probe('graph-probe.mjs', entry.specifier);
      } catch (error) {
        errors.push({
          phase: 'module graph',
          server: entry.key,
          rep: 1,
          message: String(error?.message ?? error),
        });
      }
    }
    log('import time and module graph done');
  }

  let profiles = [];
  if (!only || only.has('profile')) {
    const profileDir = join(bench, '.work', 'profiles');
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
    loads.push({ phase: 'profile', load: loadavg()[0] });
    try {
      profiles = await profilePhase(allServers[0], profileDir, root);
      log('profile pass done');
    } catch (error) {
      errors.push({ phase: 'profile', server: 'keel', rep: 1, message: String(error?.message ?? error) });
      log(`profile pass FAILED: ${error?.message ?? error}`);
    }
  }
  loads.push({ phase: 'end', load: loadavg()[0] });

  const out = process.env.BENCH_OUT ?? join(root, 'BENCHMARKS.md');
  const info = {
    ...machine(),
    cores: availableParallelism(),
    node: process.version,
    reps,
    scale,
    durationS: (performance.now() - started) / 1000,
    date: new Date().toISOString(),
    loads,
    ...(baseline && { baseline: baseline.info }),
  };
  mkdirSync(join(bench, '.work'), { recursive: true });
  writeFileSync(
    join(bench, '.work', 'results.json'),
    JSON.stringify({ info, results, errors, modules, profiles, skipped }, null, 2),
  );
  await writeReport(out, { info, servers: allServers, entries, results, errors, modules, profiles, skipped });
  log(`wrote ${out}${errors.length ? ` (${errors.length} failures)` : ''}`);
} finally {
  baseline?.cleanup();
}
