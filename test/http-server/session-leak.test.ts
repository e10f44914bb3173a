/**
 * 10,000 sessions created and abandoned (no DELETE): after the idle timeout the table is empty,
 * and no timer or handle is left. Runs in a child `node` on the compiled dist/ (built first if
 * missing), so timer accounting (unref'd timers included) is exact. Memory per session is a
 * benchmark figure (bench/), not asserted here.
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
  liveTimers: number;
  activeResources: string[];
}

test('abandoned sessions expire: empty tables, no timers, no handles', { timeout: 120_000 }, async () => {
  if (!existsSync(`${root}dist/src/hosts/http/index.js`)) {
    await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, timeout: 110_000 }).catch(
      () => undefined,
    );
  }
  const { stdout } = await run(process.execPath, [script, '10000', '300'], {
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
});
