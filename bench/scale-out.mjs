// `npm run build && node bench/scale-out.mjs`: the cost of scale-out (issue 12). `tools/call echo`
// through the round-robin proxy of the tests (test/helpers/round-robin-proxy.ts, no sticky
// sessions) against 1 process without Redis, 1 process on Redis, and 3 processes on one Redis
// (dist/examples/scale-out-server.js), at a fixed concurrency; throughput and latency
// percentiles per setup, interleaved for BENCH_REPS rounds (default 3). Writes its section of
// BENCHMARKS.md (between the scale-out markers) and bench/.work/scale-out.json.
//
// Not part of `npm test` nor of `npm run bench` (which rewrites BENCHMARKS.md as a whole: run this
// one after it). Needs `redis-server` (Debian package) and a built dist/.
//
// Environment: BENCH_REPS (rounds, default 3), SCALE_OUT_CALLS (measured calls per window, default
// 20000), SCALE_OUT_CONCURRENCY (calls in flight, default 32), SCALE_OUT_SESSIONS (default 24),
// BENCH_OUT (report path, default BENCHMARKS.md).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { HttpSession, HttpTarget } from './lib/http-driver.mjs';
import { writeSection } from './lib/bench-section.mjs';
import { machine } from './lib/proc.mjs';
import { helper, SERVER, startServer } from './lib/scale-out-procs.mjs';
import { percentile, summary } from './lib/stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
const reps = Math.max(1, Number(process.env.BENCH_REPS ?? 3));
const calls = Math.max(100, Number(process.env.SCALE_OUT_CALLS ?? 20000));
const concurrency = Math.max(1, Number(process.env.SCALE_OUT_CONCURRENCY ?? 32));
const sessionCount = Math.max(1, Number(process.env.SCALE_OUT_SESSIONS ?? 24));
const warmup = Math.min(2000, Math.floor(calls / 4));
/** Every window is bounded in time too: a stuck setup fails instead of hanging the run. */
const WINDOW_LIMIT_MS = 120_000;
const started = performance.now();

const SETUPS = [
  { key: 'one', label: '1 process, no Redis', processes: 1, redis: false },
  { key: 'one-redis', label: '1 process on Redis', processes: 1, redis: true },
  { key: 'three-redis', label: '3 processes on one Redis', processes: 3, redis: true },
];

function log(message) {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[scale-out ${seconds}s] ${message}\n`);
}

/** `count` calls with `concurrency` in flight over `sessions`; latencies in ms. */
async function window(sessions, count) {
  const latencies = [];
  let issued = 0;
  const deadline = performance.now() + WINDOW_LIMIT_MS;
  const t0 = performance.now();
  const worker = async (index) => {
    const session = sessions[index % sessions.length];
    while (issued < count) {
      if (performance.now() > deadline) throw new Error(`window did not finish within ${WINDOW_LIMIT_MS} ms`);
      issued++;
      const begin = performance.now();
      await session.echo();
      latencies.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => worker(index)));
  const seconds = (performance.now() - t0) / 1000;
  return {
    throughput: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function measure(setup, redis, startRoundRobinProxy, rep) {
  // An empty REDIS_URL (not an inherited one) keeps the no-Redis setup off Redis.
  const env = setup.redis
    ? { REDIS_URL: redis.url, KEEL_NAMESPACE: `bench-${setup.key}-${rep}` }
    : { REDIS_URL: '' };
  const servers = [];
  let proxy;
  let target;
  const sessions = [];
  try {
    for (let i = 0; i < setup.processes; i++) servers.push(await startServer(env));
    proxy = await startRoundRobinProxy(
      servers.map((server) => server.port),
      { keepAlive: true },
    );
    target = new HttpTarget(proxy.port, concurrency);
    for (let i = 0; i < sessionCount; i++) sessions.push(await new HttpSession(target).open());
    await window(sessions, warmup);
    const result = await window(sessions, calls);
    const served = new Set(proxy.log.map((entry) => entry.upstream));
    if (served.size !== setup.processes)
      throw new Error(`only ${served.size} of ${setup.processes} processes served`);
    return result;
  } finally {
    for (const session of sessions) await session.close();
    target?.close();
    await proxy?.close();
    for (const server of servers) await server.stop();
  }
}

function fmt(value, digits = 0) {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

function cell(values, digits) {
  const { median, min, max } = summary(values);
  return `${fmt(median, digits)} (${fmt(min, digits)}–${fmt(max, digits)})`;
}

function section(results, info) {
  const rows = SETUPS.map((setup) => {
    const r = results[setup.key];
    return `| ${setup.label} | ${cell(r.throughput, 0)} | ${cell(r.p50, 1)} | ${cell(r.p99, 1)} |`;
  });
  const base = summary(results.one.throughput).median;
  const ratio = (key) => `${fmt(summary(results[key].throughput).median / base, 2)}×`;
  return [
    '<!-- scale-out:start -->',
    '',
    '## Scale-out on Redis (issue 12)',
    '',
    "Written by `node bench/scale-out.mjs` (after `npm run build`), not by `npm run bench` (which keeps this section when it rewrites the file). `tools/call echo` over legacy HTTP sessions (2025-11-25), through the round-robin proxy of the scale-out tests (no sticky sessions: consecutive requests of a session go to different processes, so with 3 processes two requests in three are relayed to the session's owner over Redis pub/sub). Processes: `dist/examples/scale-out-server.js`.",
    '',
    `- Machine: ${info.model}, ${info.cores} cores; Node.js ${process.version}; redis-server ${info.redisVersion} on 127.0.0.1 (no persistence); run on ${info.date}, took ${info.minutes} min; 1-minute load average at the start ${info.load}.`,
    `- Load: ${sessionCount} sessions opened through the proxy (so their owners are spread over the processes), ${concurrency} calls in flight, ${warmup} warm-up calls then ${calls} measured calls per window; ${reps} rounds, setups interleaved. Each cell: median over the rounds (min–max).`,
    '- **Two cores for 3 processes, Redis, the proxy and the load generator**: these numbers measure the overhead of relaying and of the shared stores, not a speed-up. Three processes only add capacity on a machine with cores to give them.',
    '',
    '| setup | calls/s | p50 (ms) | p99 (ms) |',
    '| ----- | ------: | -------: | -------: |',
    ...rows,
    '',
    `Throughput against 1 process without Redis: 1 process on Redis ${ratio('one-redis')}, 3 processes on one Redis ${ratio('three-redis')}.`,
    '',
    "Where the cost is: with one process every session's owner is the process itself, so Redis only sees the session records (created, refreshed now and then); nothing is relayed. With three, two calls in three land on a process that does not own their session: the request crosses Redis pub/sub to the owner and the answer crosses back, and two processes parse it, all on the same two cores. A balancer that routes by `Mcp-Session-Id` when it can (sticky as a preference, not a requirement) sends most requests straight to their owner.",
    '',
    '<!-- scale-out:end -->',
  ].join('\n');
}

async function main() {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first`);
  mkdirSync(work, { recursive: true });
  const { redisAvailable, startRedis, rawCommand } = await helper('redis');
  const { startRoundRobinProxy } = await helper('round-robin-proxy');
  if (!redisAvailable())
    throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  const redis = await startRedis();
  const results = Object.fromEntries(
    SETUPS.map((setup) => [setup.key, { throughput: [], p50: [], p99: [] }]),
  );
  const load = loadavg()[0].toFixed(2);
  try {
    const info = (await rawCommand(redis.port, ['INFO', 'server'])) ?? '';
    const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    for (let rep = 1; rep <= reps; rep++) {
      for (const setup of SETUPS) {
        const t0 = performance.now();
        const result = await measure(setup, redis, startRoundRobinProxy, rep);
        for (const key of ['throughput', 'p50', 'p99']) results[setup.key][key].push(result[key]);
        log(
          `rep ${rep}/${reps} ${setup.label}: ${fmt(result.throughput)} calls/s, p50 ${fmt(result.p50, 1)} ms, p99 ${fmt(result.p99, 1)} ms (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
        );
      }
    }
    const { model } = machine();
    const meta = {
      model,
      cores: availableParallelism(),
      redisVersion,
      date: new Date().toISOString(),
      minutes: ((performance.now() - started) / 60_000).toFixed(1),
      load,
    };
    writeFileSync(
      join(work, 'scale-out.json'),
      JSON.stringify({ meta, calls, concurrency, sessionCount, reps, results }, null, 2),
    );
    log(`wrote ${await writeSection('scale-out', section(results, meta))}`);
  } finally {
    await redis.stop();
  }
}

await main();
