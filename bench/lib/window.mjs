// A measurement window: `concurrency` workers issue calls until `total` calls were issued or
// `maxMs` passed, whichever comes first. Every call is awaited and checked by `call`.
import { performance } from 'node:perf_hooks';
import { cpuMicros } from './proc.mjs';
import { percentile } from './stats.mjs';

/** Extra time a window may take past its cap for the calls already issued to be answered. */
const GRACE_MS = 15_000;

/** Waits for the workers, but never longer than `maxMs` + grace: a lost answer fails the window. */
function bounded(workers, maxMs, state) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      state.failed = true;
      reject(
        new Error(`window not finished ${GRACE_MS} ms after its ${maxMs} ms cap (an answer never came)`),
      );
    }, maxMs + GRACE_MS);
  });
  return Promise.race([Promise.all(workers), timeout]).finally(() => clearTimeout(timer));
}

/**
 * @param {{ total: number, maxMs: number, concurrency: number, pid: number,
 *           call: (worker: number) => Promise<void> }} options
 */
export async function runWindow({ total, maxMs, concurrency, pid, call }) {
  const latencies = new Float64Array(total);
  let issued = 0;
  let done = 0;
  const state = { failed: false };
  const cpu0 = cpuMicros(pid);
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async (index) => {
    try {
      while (!state.failed && issued < total && performance.now() < deadline) {
        issued++;
        const start = performance.now();
        await call(index);
        latencies[done++] = performance.now() - start;
      }
    } catch (error) {
      state.failed = true;
      throw error;
    }
  };
  const workers = [];
  for (let i = 0; i < concurrency; i++) workers.push(worker(i));
  await bounded(workers, maxMs, state);
  const elapsedMs = performance.now() - t0;
  const cpu = cpuMicros(pid) - cpu0;
  const measured = latencies.subarray(0, done);
  return {
    calls: done,
    elapsedMs,
    rate: (done * 1000) / elapsedMs,
    p50: percentile(measured, 50),
    p99: percentile(measured, 99),
    cpuPerCall: cpu / done,
  };
}

/** Unmeasured calls so the JIT has warmed up the paths that are measured next. */
export async function warmUp({ total, maxMs, concurrency, call }) {
  let issued = 0;
  const state = { failed: false };
  const deadline = performance.now() + maxMs;
  const worker = async (index) => {
    try {
      while (!state.failed && issued < total && performance.now() < deadline) {
        issued++;
        await call(index);
      }
    } catch (error) {
      state.failed = true;
      throw error;
    }
  };
  const workers = [];
  for (let i = 0; i < concurrency; i++) workers.push(worker(i));
  await bounded(workers, maxMs, state);
}
