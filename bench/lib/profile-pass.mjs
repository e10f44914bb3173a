// The profiling pass: Keel's stdio, HTTP (sessions) and HTTP (stateless) servers run once each
// with `--cpu-prof` under the same load as the measured windows; the profiles are summarised.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HttpTarget } from './http-driver.mjs';
import { HttpServerProcess } from './http-server-process.mjs';
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

/** @returns {{ name: string, load: string, summary: ReturnType<typeof summariseProfile> }[]} */
export async function profilePhase(keel, dir, root) {
  const runs = [
    {
      name: 'stdio',
      load: '64 echo calls in flight, then 64 wait_sampling calls in flight',
      run: (d, r) => profileStdio(keel.stdio, d, r),
    },
    {
      name: 'HTTP, sessions',
      load: '64 sessions × 1 echo call in flight, then 64 wait_sampling calls in flight',
      run: (d, r) => profileHttp(keel.http, d, false, r),
    },
    {
      name: 'HTTP, stateless',
      load: '64 clients × 1 echo call in flight',
      run: (d, r) => profileHttp(keel.stateless, d, true, r),
    },
  ];
  const out = [];
  for (const [index, entry] of runs.entries()) {
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
