// The profiling pass: Keel's stdio, HTTP (sessions: 64 sessions, then one session with 64 calls in
// flight), HTTP (stateless) and HTTP 2026-07-28 servers run once each with `--cpu-prof` under the
// same load as the measured windows; the profiles are summarised. BENCH_PROFILES (comma-separated
// keys: stdio, sessions, one-session, stateless, modern; for development) runs only some.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HttpTarget } from './http-driver.mjs';
import { HttpServerProcess } from './http-server-process.mjs';
import { ModernClient } from './modern-driver.mjs';
import { WINDOWS, openSessions } from './phases.mjs';
import { summariseProfile } from './profile.mjs';
import { StdioDriver } from './stdio-driver.mjs';
import { runWindow, warmUp } from './window.mjs';

function profileArgs(dir) {
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=500'];
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** Runs `fn` and remembers the time range it covered. */
async function timed(ranges, fn) {
  const from = nowUs();
  await fn();
  ranges.push([from, nowUs()]);
}

function onlyProfile(dir) {
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one .cpuprofile in ${dir}, found ${files.length}`);
  return join(dir, files[0]);
}

async function profileStdio(file, dir, ranges) {
  const driver = await StdioDriver.start(file, { nodeArgs: profileArgs(dir) });
  try {
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => driver.echo() });
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => driver.sampling() });
    const pid = driver.pid;
    await timed(ranges, () =>
      runWindow({ ...WINDOWS.inFlight, concurrency: 64, pid, call: () => driver.echo() }),
    );
    await timed(ranges, () =>
      runWindow({ ...WINDOWS.sampling, concurrency: 64, pid, call: () => driver.sampling() }),
    );
  } finally {
    await driver.stop(15_000);
  }
}

async function profileHttp(file, dir, stateless, ranges) {
  const server = await HttpServerProcess.start(file, { nodeArgs: profileArgs(dir) });
  const target = new HttpTarget(server.port, 2 * 64 + 4);
  try {
    const sessions = await openSessions(target, 64);
    const call = (w) => sessions[w].echo();
    const sampling = (w) => sessions[w].sampling();
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call });
    if (!stateless) await warmUp({ ...WINDOWS.warm, concurrency: 64, call: sampling });
    const pid = server.pid;
    await timed(ranges, () => runWindow({ ...WINDOWS.httpConcurrent, concurrency: 64, pid, call }));
    if (!stateless) {
      await timed(ranges, () => runWindow({ ...WINDOWS.httpSampling, concurrency: 64, pid, call: sampling }));
    }
  } finally {
    target.close();
    await server.stop(15_000);
  }
}

/** 64 echo calls in flight on one session (issue 24: one client running tools in parallel). */
async function profileOneSession(file, dir, ranges) {
  const server = await HttpServerProcess.start(file, { nodeArgs: profileArgs(dir) });
  const target = new HttpTarget(server.port, 2 * 64 + 4);
  try {
    const [session] = await openSessions(target, 1);
    const call = () => session.echo();
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call });
    const pid = server.pid;
    await timed(ranges, () => runWindow({ ...WINDOWS.httpConcurrent, concurrency: 64, pid, call }));
  } finally {
    target.close();
    await server.stop(15_000);
  }
}

async function profileModern(file, dir, ranges) {
  const server = await HttpServerProcess.start(file, { nodeArgs: profileArgs(dir) });
  const target = new HttpTarget(server.port, 2 * 64 + 4);
  try {
    const client = new ModernClient(target);
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => client.echo() });
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => client.roundTrip() });
    const pid = server.pid;
    await timed(ranges, () =>
      runWindow({ ...WINDOWS.httpConcurrent, concurrency: 64, pid, call: () => client.echo() }),
    );
    await timed(ranges, () =>
      runWindow({ ...WINDOWS.httpSampling, concurrency: 64, pid, call: () => client.roundTrip() }),
    );
  } finally {
    target.close();
    await server.stop(15_000);
  }
}

/** @returns {{ name: string, load: string, summary: ReturnType<typeof summariseProfile> }[]} */
export async function profilePhase(keel, dir, root) {
  const runs = [
    {
      key: 'stdio',
      name: 'stdio',
      load: '64 echo calls in flight, then 64 wait_sampling calls in flight',
      run: (d, r) => profileStdio(keel.stdio, d, r),
    },
    {
      key: 'sessions',
      name: 'HTTP, sessions',
      load: '64 sessions × 1 echo call in flight, then 64 wait_sampling calls in flight',
      run: (d, r) => profileHttp(keel.http, d, false, r),
    },
    {
      key: 'one-session',
      name: 'HTTP, one session',
      load: 'one session × 64 echo calls in flight',
      run: (d, r) => profileOneSession(keel.http, d, r),
    },
    {
      key: 'stateless',
      name: 'HTTP, stateless',
      load: '64 clients × 1 echo call in flight',
      run: (d, r) => profileHttp(keel.stateless, d, true, r),
    },
    {
      key: 'modern',
      name: 'HTTP, 2026-07-28',
      load: '64 echo calls in flight, then 64 input_required round trips in flight (no sessions)',
      run: (d, r) => profileModern(keel.modern, d, r),
    },
  ];
  const only = process.env.BENCH_PROFILES?.split(',');
  const out = [];
  for (const [index, entry] of runs.entries()) {
    if (only && !only.includes(entry.key)) continue;
    const runDir = join(dir, String(index));
    const ranges = [];
    await entry.run(runDir, ranges);
    out.push({
      name: entry.name,
      load: entry.load,
      summary: summariseProfile(onlyProfile(runDir), root, { ranges }),
    });
  }
  return out;
}
