/**
 * 10,000 sessions created and abandoned (no DELETE): after the idle timeout the table is empty,
 * no timer is left, and the heap returns to its baseline. Runs in a child `node --expose-gc` on
 * the compiled dist/ (built first if missing), so GC and timer accounting are exact.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const script = fileURLToPath(new URL('./fixtures/leak-check.js', import.meta.url));

interface LeakReport {
  sessions: number;
  peakSessions: number;
  peakServerSessions: number;
  sessionsAfter: number;
  serverSessionsAfter: number;
  bytesPerSession: number;
  heapGrowth: number;
  liveTimers: number;
  activeResources: string[];
}

/** Heap may end above its baseline by at most this (allocator slack, table capacity). */
const HEAP_MARGIN_BYTES = 2 * 1024 * 1024;
/** Design target for an idle session (engine + transport + table entry). */
const MAX_BYTES_PER_SESSION = 8 * 1024;

test(
  'abandoned sessions expire: empty table, no timers, heap back to baseline',
  { timeout: 120_000 },
  async () => {
    if (!existsSync(`${root}dist/src/transports/http/index.js`)) {
      await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, timeout: 110_000 }).catch(
        () => undefined,
      );
    }
    const { stdout } = await run(process.execPath, ['--expose-gc', script, '10000', '300'], {
      cwd: root,
      timeout: 90_000,
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as LeakReport;
    expect(report.peakSessions).toBe(10_000);
    expect(report.peakServerSessions).toBe(10_000);
    expect(report.sessionsAfter).toBe(0);
    expect(report.serverSessionsAfter).toBe(0);
    expect(report.liveTimers).toBe(0);
    expect(report.activeResources).toEqual([]);
    expect(report.heapGrowth).toBeLessThan(HEAP_MARGIN_BYTES);
    expect(report.bytesPerSession).toBeLessThan(MAX_BYTES_PER_SESSION);
  },
);
