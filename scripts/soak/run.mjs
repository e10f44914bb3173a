// `npm run soak -- --minutes N`: Keel under a mixed load for N minutes, judged on memory and on
// every call (issue 28; docs/soak.md). Needs a built dist/ (`npm run build`).
//
//   --minutes N     length of the load (default 2; fractions allowed)
//   --setups LIST   `one` (one process), `three` (three processes on Redis behind the round-robin
//                   proxy of the tests), comma-separated; default `one`, plus `three` when REDIS_URL
//                   is set. Setups run at the same time.
//   --sample-s S    seconds between samples (default 30; at least 6 samples are taken)
//   --workers W     concurrent load loops per setup (default 8)
//   --out DIR       where summary.json and the SVG plots go (default: a new temp dir)
//
// Exit 1 on any failed judgement (memory growth, handles or sessions left, a call lost, hung,
// answered twice or answered wrong), with the reasons on stderr.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { helper } from '../lib/test-helper.mjs';
import { runLoad } from './load.mjs';
import { memoryChart } from './svg.mjs';
import { BOUNDS, memoryVerdict } from './verdict.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVER = join(root, 'dist', 'examples', 'soak-server.js');
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    setups: { type: 'string' },
    'sample-s': { type: 'string', default: '30' },
    workers: { type: 'string', default: '8' },
    out: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const loadMs = Math.round(minutes * 60_000);
// At least six samples over the load, so a short run is judged too.
const sampleMs = Math.max(1_000, Math.min(Number(values['sample-s']) * 1_000, Math.floor(loadMs / 6)));
const workers = Math.max(1, Number(values.workers));
const redisUrl = process.env.REDIS_URL;
const setups = (values.setups ?? (redisUrl ? 'one,three' : 'one')).split(',').filter(Boolean);
const out = values.out ? resolve(values.out) : mkdtempSync(join(tmpdir(), 'keel-soak-'));
mkdirSync(out, { recursive: true });
if (!(loadMs > 0)) throw new Error('--minutes must be a positive number');
if (setups.includes('three') && !redisUrl) throw new Error('the `three` setup needs REDIS_URL');
const started = Date.now();
const log = (message) =>
  process.stderr.write(`[soak ${((Date.now() - started) / 1000).toFixed(0).padStart(5)}s] ${message}\n`);

/** One soak-server process with an IPC channel; resolves once it prints its URL. */
function startServer(env, name) {
  const child = spawn(process.execPath, ['--expose-gc', SERVER], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => {
    stderr += text;
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const exited = new Promise((done) => child.once('exit', done));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectStart(new Error(`${name} did not start within 15 s: ${stderr}`));
    }, 15_000);
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      const newline = text.indexOf('\n');
      if (newline < 0 || timer === undefined) return;
      clearTimeout(timer);
      const url = text.slice(0, newline).trim();
      resolveStart({
        name,
        url,
        port: Number(new URL(url).port),
        stderr: () => stderr,
        /** The process's own figures, over IPC (bounded). */
        stats: () =>
          new Promise((resolveStats, rejectStats) => {
            const limit = setTimeout(() => rejectStats(new Error(`${name}: no stats within 10 s`)), 10_000);
            child.once('message', (message) => {
              clearTimeout(limit);
              resolveStats(message);
            });
            child.send('stats');
          }),
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 8_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rejectStart(new Error(`${name} exited (${code}) before it served: ${stderr}`));
    });
  });
}

/** `keel:<namespace>:*` keys on Redis (a plain KEYS: the namespace holds a few hundred at most). */
async function redisKeys(client, namespace) {
  return (await client.keys(`keel:${namespace}:*`)).length;
}

async function runSetup(key, redis) {
  const namespace = `soak-${key}-${process.pid}`;
  const count = key === 'three' ? 3 : 1;
  const env =
    key === 'three'
      ? {
          REDIS_URL: redisUrl,
          KEEL_NAMESPACE: namespace,
          KEEL_STATE_KEY: randomBytes(32).toString('base64url'),
        }
      : { REDIS_URL: '' };
  const servers = [];
  let proxy;
  try {
    for (let i = 0; i < count; i++) servers.push(await startServer(env, `${key}-${i + 1}`));
    let url = servers[0].url;
    if (count > 1) {
      const { startRoundRobinProxy } = await helper('round-robin-proxy');
      proxy = await startRoundRobinProxy(servers.map((server) => server.port));
      url = proxy.url('/mcp');
    }
    const samples = servers.map(() => []);
    const keys = [];
    const sample = async () => {
      const t = Date.now() - started;
      const figures = await Promise.all(servers.map((server) => server.stats()));
      figures.forEach((figure, i) => samples[i].push({ t, ...figure }));
      if (redis) keys.push({ t, keys: await redisKeys(redis, namespace) });
    };
    await sample();
    const baseline = samples.map((list) => list[0].handles);
    log(
      `${key}: ${count} process(es) at ${url}; load for ${minutes} min, a sample every ${sampleMs / 1000} s`,
    );
    const ticker = setInterval(
      () => void sample().catch((error) => log(`${key}: sample failed: ${error.message}`)),
      sampleMs,
    );
    let tally;
    try {
      tally = await runLoad({ url, workers, durationMs: loadMs, log: (m) => log(`${key}: ${m}`) });
    } finally {
      clearInterval(ticker);
    }
    // Clients are closed: sessions must be gone, and handles back to about where they started.
    let end;
    for (let attempt = 0; attempt < 20; attempt++) {
      await new Promise((done) => setTimeout(done, 500));
      end = await Promise.all(servers.map((server) => server.stats()));
      const settled = end.every(
        (figure, i) => figure.sessions === 0 && figure.handles <= baseline[i] + BOUNDS.handles,
      );
      if (settled) break;
    }
    await sample();
    const failures = [];
    const processes = servers.map((server, i) => {
      const verdict = memoryVerdict(samples[i], sampleMs);
      for (const failure of verdict.failures) failures.push(`${server.name}: ${failure}`);
      if (end[i].sessions !== 0)
        failures.push(`${server.name}: ${end[i].sessions} sessions left after every client closed`);
      if (end[i].handles > baseline[i] + BOUNDS.handles)
        failures.push(`${server.name}: ${end[i].handles} handles at the end, ${baseline[i]} at the start`);
      return { name: server.name, verdict, start: samples[i][0], end: end[i], samples: samples[i] };
    });
    const { totals } = tally;
    for (const what of ['wrong', 'hung', 'duplicated', 'lost'])
      if (totals[what] > 0) failures.push(`${key}: ${totals[what]} call(s) ${what}`);
    if (redis && keys.length > 2) {
      const last = keys.at(-1).keys;
      log(`${key}: keel:* keys at the end: ${last}`);
    }
    writeFileSync(
      join(out, `${key}-memory.svg`),
      memoryChart(
        `Keel soak, ${key === 'three' ? 'three processes on Redis' : 'one process'}: ${minutes} min`,
        processes,
      ),
    );
    return {
      key,
      url,
      processes: processes.map(({ samples: _s, ...rest }) => rest),
      samples: Object.fromEntries(processes.map((p) => [p.name, p.samples])),
      keys,
      calls: tally,
      failures,
    };
  } finally {
    await proxy?.close();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function main() {
  let redis;
  if (setups.includes('three')) {
    const { createClient } = await import('@redis/client');
    redis = createClient({ url: redisUrl, disableOfflineQueue: true });
    redis.on('error', (error) => log(`redis: ${error.message}`));
    await redis.connect();
  }
  try {
    const results = await Promise.all(setups.map((key) => runSetup(key, redis)));
    const failures = results.flatMap((result) => result.failures);
    const summary = {
      date: new Date().toISOString(),
      node: process.version,
      minutes,
      sampleMs,
      workers,
      bounds: BOUNDS,
      results,
      failures,
    };
    writeFileSync(join(out, 'summary.json'), JSON.stringify(summary, null, 2));
    for (const result of results) {
      const t = result.calls.totals;
      log(
        `${result.key}: ${t.started} calls: ${t.ok} ok, ${t.expectedError} expected errors (cancels, disconnects), ${t.wrong} wrong, ${t.hung} hung, ${t.duplicated} duplicated, ${t.lost} lost`,
      );
      for (const p of result.processes) {
        const v = p.verdict;
        const figures = v.judged
          ? `heap ${v.heapPerHour.toFixed(1)} MB/h (${v.heapGrowth.toFixed(1)} MB over ${v.windowMinutes.toFixed(1)} min), RSS ${v.rssPerHour.toFixed(1)} MB/h (${v.rssGrowth.toFixed(1)} MB)`
          : 'too few samples to fit';
        log(
          `${p.name}: ${figures}; heap ${(p.end.heapUsed / 1_048_576).toFixed(1)} MB, RSS ${(p.end.rss / 1_048_576).toFixed(1)} MB, handles ${p.start.handles} → ${p.end.handles}, sessions at the end ${p.end.sessions}`,
        );
      }
    }
    log(`results in ${out}`);
    if (failures.length > 0) {
      for (const failure of failures) log(`FAIL ${failure}`);
      for (const result of results)
        for (const problem of result.calls.problems.slice(0, 10)) log(`  ${problem}`);
      process.exitCode = 1;
    } else log('PASS');
  } finally {
    await redis?.close();
  }
}

await main();
