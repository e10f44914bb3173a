// A measurement window: `concurrency` workers issue calls until `total` calls were issued or
// `maxMs` passed, whichever comes first. Every call is awaited and checked by `call`.
import { performance } from 'node:perf_hooks';
import { cpuMicros } from './proc.mjs';
import { percentile } from './stats.mjs';

/**
 * @param {{ total: number, maxMs: number, concurrency: number, pid: number,
 *           call: (worker: number) => Promise<void> }} options
 */
export async function runWindow({ total, maxMs, concurrency, pid, call }) {
  const latencies = new Float64Array(total);
  let issued = 0;
  let done = 0;
  let failed = false;
  const cpu0 = cpuMicros(pid);
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async (index) => {
    try {
      while (!failed && issued < total && performance.now() < deadline) {
        issued++;
        const start = performance.now();
        await call(index);
        latencies[done++] = performance.now() - start;
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  const workers = [];
  for (let i = 0; i < concurrency; i++) workers.push(worker(i));
  await Promise.all(workers);
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
  let failed = false;
  const deadline = performance.now() + maxMs;
  const worker = async (index) => {
    try {
      while (!failed && issued < total && performance.now() < deadline) {
        issued++;
        await call(index);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  const workers = [];
  for (let i = 0; i < concurrency; i++) workers.push(worker(i));
  await Promise.all(workers);
}
