// `npm run build && node bench/adoption.mjs`: what a session moving between processes costs
// (issue 28). Three dist/examples/scale-out-server.js processes on one throwaway Redis, raw HTTP
// sessions (bench/lib/http-driver.mjs), `tools/call echo` sent straight to a chosen process:
//
// - local:     a call sent to the session's owner;
// - relayed:   a call sent to another process (relayed to the owner over Redis pub/sub);
// - handed over: the owner is stopped with SIGTERM (it drains: its idle sessions are handed over),
//   then each session's first call, sent to another process, which adopts it;
// - after:     the next call of each adopted session, sent to its new owner;
// - crash:     the owner is SIGKILLed; each session's first call on another process, which waits
//   for the dead owner's liveness key to lapse (5 s by default) and then adopts it.
//
// Each kind: latency percentiles over SESSIONS sessions × BENCH_REPS rounds (default 3). Writes
// its section of BENCHMARKS.md (between the adoption markers) and bench/.work/adoption.json.
// Environment: BENCH_REPS, ADOPTION_SESSIONS (default 40), BENCH_OUT (default BENCHMARKS.md).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { HttpSession, HttpTarget } from './lib/http-driver.mjs';
import { writeSection } from './lib/bench-section.mjs';
import { machine } from './lib/proc.mjs';
import { helper, SERVER, startServer } from './lib/scale-out-procs.mjs';
import { percentile } from './lib/stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'bench', '.work');
const reps = Math.max(1, Number(process.env.BENCH_REPS ?? 3));
const sessionCount = Math.max(1, Number(process.env.ADOPTION_SESSIONS ?? 40));
const started = performance.now();

const KINDS = [
  ['local', 'call on the owner'],
  ['relayed', 'call relayed to the owner'],
  ['handedOver', 'first call after a hand-over (SIGTERM), adopted'],
  ['after', 'next call, on the adopting process'],
  ['crash', 'first call after a crash (SIGKILL), adopted'],
];

function log(message) {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[adoption ${seconds}s] ${message}\n`);
}

/** `session`, as seen through `target` (same id and headers, requests go to that process). */
function via(session, target) {
  const moved = new HttpSession(target);
  moved.headers = session.headers;
  moved.sessionId = session.sessionId;
  moved.nextId = session.nextId + 1_000;
  return moved;
}

/** One timed echo per session, sequentially (each first call is a cold path: no overlap). */
async function timed(sessions) {
  const latencies = [];
  for (const session of sessions) {
    const begin = performance.now();
    await session.echo();
    latencies.push(performance.now() - begin);
  }
  return latencies;
}

async function round(redis, rep, out) {
  const env = { REDIS_URL: redis.url, KEEL_NAMESPACE: `bench-adoption-${rep}` };
  const servers = [await startServer(env), await startServer(env), await startServer(env)];
  const targets = servers.map((server) => new HttpTarget(server.port, 8));
  try {
    const [a, b, c] = targets;
    // Sessions owned by A; warm both paths first (JIT, pooled sockets).
    const onA = [];
    for (let i = 0; i < sessionCount; i++) onA.push(await new HttpSession(a).open());
    const throughB = onA.map((session) => via(session, b));
    await timed(onA);
    await timed(throughB);
    out.local.push(...(await timed(onA)));
    out.relayed.push(...(await timed(throughB)));
    // A drains: its sessions are idle, so all are handed over before it exits.
    await servers[0].stop('SIGTERM');
    out.handedOver.push(...(await timed(throughB)));
    out.after.push(...(await timed(throughB)));
    // Sessions owned by C, then C is killed: B adopts each after the liveness window.
    const onC = [];
    for (let i = 0; i < sessionCount; i++) onC.push(await new HttpSession(c).open());
    await servers[2].stop('SIGKILL');
    const crashed = onC.map((session) => via(session, b));
    // In parallel, as clients would: one liveness wait shared by all of them.
    out.crash.push(
      ...(await Promise.all(
        crashed.map(async (session) => {
          const begin = performance.now();
          await session.echo();
          return performance.now() - begin;
        }),
      )),
    );
  } finally {
    for (const target of targets) target.close();
    for (const server of servers) await server.stop('SIGKILL');
  }
}

function fmt(value) {
  return Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 0) : '–';
}

function section(out, info) {
  const rows = KINDS.map(([key, label]) => {
    const values = out[key];
    const p = (q) => fmt(percentile(values, q));
    return `| ${label} | ${values.length} | ${p(50)} | ${p(90)} | ${fmt(Math.max(...values))} |`;
  });
  return [
    '<!-- adoption:start -->',
    '',
    '## Adoption: sessions moving between processes (issue 28)',
    '',
    "Written by `node bench/adoption.mjs` (after `npm run build`). Three `dist/examples/scale-out-server.js` processes on one Redis; raw HTTP sessions (2025-11-25), each `tools/call echo` sent straight to a chosen process, one call at a time. A drain hands idle sessions over (no wait); after a crash the adopting process first waits for the dead owner's liveness key to lapse (`livenessTtlMs`, 5 s by default), which is what the crash row measures.",
    '',
    `- Machine: ${info.model}, ${info.cores} cores; Node.js ${process.version}; run on ${info.date}, took ${info.minutes} min; ${sessionCount} sessions × ${reps} rounds per row.`,
    '',
    '| call | n | p50 (ms) | p90 (ms) | max (ms) |',
    '| ---- | -: | -------: | -------: | -------: |',
    ...rows,
    '',
    '<!-- adoption:end -->',
  ].join('\n');
}

async function main() {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first`);
  mkdirSync(work, { recursive: true });
  const { redisAvailable, startRedis } = await helper('redis');
  if (!redisAvailable())
    throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  const redis = await startRedis();
  const out = Object.fromEntries(KINDS.map(([key]) => [key, []]));
  try {
    for (let rep = 0; rep < reps; rep++) {
      log(`round ${rep + 1} of ${reps}`);
      await round(redis, rep, out);
    }
  } finally {
    await redis.stop();
  }
  const info = {
    ...machine(),
    cores: availableParallelism(),
    date: new Date().toISOString(),
    minutes: ((performance.now() - started) / 60_000).toFixed(1),
  };
  writeFileSync(join(work, 'adoption.json'), JSON.stringify({ info, out }, null, 2));
  log(`wrote ${await writeSection('adoption', section(out, info))}`);
}

await main();
