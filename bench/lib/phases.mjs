// One function per benchmark phase. Each runs ONE server once (the runner interleaves servers
// and repetitions) and returns named measurements. Every window is bounded in calls and time.
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpSession, HttpTarget } from './http-driver.mjs';
import { HttpServerProcess } from './http-server-process.mjs';
import { openInspector } from './inspector.mjs';
import { memory } from './proc.mjs';
import { StdioDriver, withTimeout } from './stdio-driver.mjs';
import { runWindow, warmUp } from './window.mjs';

/** Window sizes: calls (upper bound) and time cap in ms. */
export const WINDOWS = {
  warm: { total: 4_000, maxMs: 1_500 },
  sequential: { total: 20_000, maxMs: 2_500 },
  inFlight: { total: 400_000, maxMs: 3_000 },
  sampling: { total: 200_000, maxMs: 2_500 },
  httpSequential: { total: 20_000, maxMs: 2_500 },
  httpConcurrent: { total: 200_000, maxMs: 3_000 },
  httpSampling: { total: 100_000, maxMs: 2_500 },
};

export function scaleWindows(factor) {
  for (const window of Object.values(WINDOWS)) {
    window.total = Math.max(100, Math.round(window.total * factor));
    window.maxMs = Math.max(200, Math.round(window.maxMs * factor));
  }
}

/** A window's figures under `prefix.` (rate, p50, p99, cpu, calls). */
export function flatten(prefix, window) {
  return {
    [`${prefix}.rate`]: window.rate,
    [`${prefix}.p50`]: window.p50,
    [`${prefix}.p99`]: window.p99,
    [`${prefix}.cpu`]: window.cpuPerCall,
    [`${prefix}.calls`]: window.calls,
  };
}

/** stdio: sequential echo, 64 echo in flight, 64 wait_sampling in flight, then peak RSS. */
export async function stdioPhase(file) {
  const driver = await StdioDriver.start(file);
  try {
    const pid = driver.pid;
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => driver.echo() });
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => driver.sampling() });
    const sequential = await runWindow({
      ...WINDOWS.sequential,
      concurrency: 1,
      pid,
      call: () => driver.echo(),
    });
    const inFlight = await runWindow({
      ...WINDOWS.inFlight,
      concurrency: 64,
      pid,
      call: () => driver.echo(),
    });
    const sampling = await runWindow({
      ...WINDOWS.sampling,
      concurrency: 64,
      pid,
      call: () => driver.sampling(),
    });
    const { hwm } = memory(pid);
    return {
      ...flatten('stdio.seq', sequential),
      ...flatten('stdio.c64', inFlight),
      ...flatten('stdio.samp64', sampling),
      'stdio.hwm': hwm,
    };
  } finally {
    await driver.stop();
  }
}

/** Spawn → initialize answer, `count` fresh processes. Returns every sample. */
export async function spawnPhase(file, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const driver = await StdioDriver.start(file);
    samples.push(driver.spawnToInitializeMs);
    await driver.stop();
  }
  return { 'spawn.ms': samples };
}

/**
 * Opens `count` client sessions, `parallel` handshakes at a time; bounded like a window (60 s, or
 * 10 ms per session for larger batches).
 */
export async function openSessions(target, count, parallel = 16) {
  const sessions = [];
  let next = 0;
  const opener = async () => {
    while (next < count) {
      next++;
      sessions.push(await new HttpSession(target).open());
    }
  };
  const openers = Promise.all(Array.from({ length: Math.min(parallel, count) }, opener));
  const timeoutMs = Math.max(60_000, count * 10);
  await withTimeout(openers, timeoutMs, `opening ${count} sessions took over ${timeoutMs / 1000} s`);
  return sessions;
}

/**
 * HTTP: echo at concurrency 1 and 64 (one client session per worker); with sessions, 64 echo calls
 * in flight on one session; and — with sessions, unless
 * `sampling` is false — 64 wait_sampling calls in flight, each answered over the POST's SSE
 * stream. A server that answers every POST with plain JSON (`enableJsonResponse`) has no stream
 * for the sampling request to travel on, so it passes `sampling: false`.
 */
export async function httpPhase(file, { stateless, prefix, sampling: withSampling = true }) {
  const measureSampling = !stateless && withSampling;
  const server = await HttpServerProcess.start(file);
  const target = new HttpTarget(server.port, 2 * 64 + 4);
  try {
    const pid = server.pid;
    const sessions = await openSessions(target, 64);
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: (w) => sessions[w].echo() });
    if (measureSampling)
      await warmUp({ ...WINDOWS.warm, concurrency: 64, call: (w) => sessions[w].sampling() });
    const c1 = await runWindow({
      ...WINDOWS.httpSequential,
      concurrency: 1,
      pid,
      call: () => sessions[0].echo(),
    });
    const c64 = await runWindow({
      ...WINDOWS.httpConcurrent,
      concurrency: 64,
      pid,
      call: (w) => sessions[w].echo(),
    });
    const result = { ...flatten(`${prefix}.c1`, c1), ...flatten(`${prefix}.c64`, c64) };
    if (!stateless) {
      // One client running tools in parallel, as agents do: 64 calls in flight on ONE session
      // (each its own POST carrying the same session id), what 64 sessions × 1 call do not show.
      const one = () => sessions[0].echo();
      await warmUp({ ...WINDOWS.warm, concurrency: 64, call: one });
      const one64 = await runWindow({ ...WINDOWS.httpConcurrent, concurrency: 64, pid, call: one });
      Object.assign(result, flatten(`${prefix}.one64`, one64));
    }
    if (measureSampling) {
      const sampling = await runWindow({
        ...WINDOWS.httpSampling,
        concurrency: 64,
        pid,
        call: (w) => sessions[w].sampling(),
      });
      Object.assign(result, flatten(`${prefix}.samp64`, sampling));
    }
    await Promise.all(sessions.map((session) => session.close()));
    return result;
  } catch (error) {
    throw withServerState(error, server);
  } finally {
    target.close();
    await server.stop();
  }
}

/** Adds whether the server process is still alive and its last stderr lines to a failure. */
export function withServerState(error, server) {
  const state = server.exitInfo ? `server exited (${server.exitInfo})` : 'server still running';
  const tail = server.stderrTail();
  return new Error(`${error?.message ?? error} [${state}${tail ? `; stderr: ${tail}` : ''}]`, {
    cause: error,
  });
}

/**
 * Memory per idle session: growth of RSS (and of the V8 heap) after `count` (10,000, issue 14's
 * figure) more initialized sessions stay open, divided by `count`, each reading taken after a full
 * GC forced from the outside through the inspector (see inspector.mjs). A first batch of sessions
 * warms the code paths and is part of the baseline. The RSS growth without a forced GC
 * (`sessions.rawBytes`, what an operator sees) is kept as well. Keel's bench servers raise the
 * session cap past `warm + count` (BENCH_SESSION_LIMITS); the SDK and bare servers have none.
 */
export async function sessionsPhase(file, { count = 10_000, warm = 100, settleMs = 500 } = {}) {
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --inspect-port=0`.trim();
  const server = await HttpServerProcess.start(file, { env: { NODE_OPTIONS: nodeOptions } });
  const target = new HttpTarget(server.port, 32);
  let inspector;
  try {
    await openSessions(target, warm);
    inspector = await withTimeout(openInspector(server), 10_000, 'inspector did not open');
    await sleep(settleMs);
    const rawBefore = memory(server.pid).rss;
    const heapBefore = await withTimeout(inspector.collectGarbage(), 20_000, 'forced GC timed out');
    await sleep(settleMs);
    const before = memory(server.pid).rss;
    const sessions = await openSessions(target, count);
    if (sessions.length !== count) throw new Error(`opened ${sessions.length} of ${count} sessions`);
    const ids = new Set(sessions.map((session) => session.sessionId));
    if (ids.size !== count || ids.has(undefined)) throw new Error('sessions without distinct ids');
    await sleep(settleMs);
    const rawAfter = memory(server.pid).rss;
    const heapAfter = await withTimeout(inspector.collectGarbage(), 20_000, 'forced GC timed out');
    await sleep(settleMs);
    const after = memory(server.pid).rss;
    // All sessions must still be alive (no eviction): one checked call on a few of them.
    for (const session of [sessions[0], sessions[count >> 1], sessions[count - 1]]) await session.echo();
    return {
      'sessions.bytes': (after - before) / count,
      'sessions.heap': (heapAfter - heapBefore) / count,
      'sessions.rawBytes': (rawAfter - rawBefore) / count,
    };
  } catch (error) {
    throw withServerState(error, server);
  } finally {
    inspector?.close();
    target.close();
    await server.stop();
  }
}
