/**
 * Issue 28 item 4: the soak catches a leak. The soak server keeps 100 KB per `short` call when
 * SOAK_LEAK says so; a 30-second soak of it must fail on heap growth (exit 1, naming it), with
 * every call still answered right. (The passing run is CI's own 2-minute soak, .ci/run.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const out = mkdtempSync(join(tmpdir(), 'keel-soak-leak-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

test('issue 28 soak: a server that leaks 100 KB per call fails the soak on heap growth', async () => {
  const child = spawn(
    process.execPath,
    [
      'scripts/soak/run.mjs',
      '--minutes',
      '0.5',
      '--setups',
      'one',
      '--sample-s',
      '1',
      '--workers',
      '4',
      '--out',
      out,
    ],
    { env: { ...process.env, SOAK_LEAK: '102400', REDIS_URL: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, stderr).toBe(1);
  expect(stderr).toMatch(/FAIL one-1: heap grows \d+(\.\d)? MB\/h/);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
    results: { calls: { totals: Record<string, number> } }[];
  };
  // The leak is the only failure: the calls themselves were all answered right.
  expect(summary.results[0]!.calls.totals).toMatchObject({ wrong: 0, hung: 0, duplicated: 0, lost: 0 });
  expect(readFileSync(join(out, 'one-memory.svg'), 'utf8')).toMatch(/^<svg [^>]*>[\s\S]*<polyline/);
}, 90_000);
