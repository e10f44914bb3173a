import { describe, expect, test } from 'vitest';
import {
  loadRuntimeModule,
  type DriveModule,
  type MatrixModule,
  type StepResult,
} from './runtime-modules.js';

const { formatMatrix } = await loadRuntimeModule<MatrixModule>('lib/matrix.mjs');
const { STEPS } = await loadRuntimeModule<DriveModule>('lib/drive.mjs');

const allPass = (): StepResult[] => STEPS.map((step) => ({ step, ok: true, detail: 'fine' }));

describe('the runtime matrix', () => {
  test('all steps passed (or not applicable): ok, one row per runtime, no failure lines', () => {
    const worker = allPass().map((r) => (r.step === 'session-end' ? { ...r, ok: 'n/a' as const } : r));
    const { text, ok } = formatMatrix([
      { runtime: 'bun', version: '1.4.5', results: allPass() },
      { runtime: 'workerd', version: '1', results: worker },
    ]);
    expect(ok).toBe(true);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]?.split(/\s+/)).toEqual(['runtime', ...STEPS]);
    expect(lines[1]).not.toMatch(/FAIL|n\/a/);
    expect(lines[2]?.match(/n\/a/g)).toHaveLength(1);
  });

  test('a failed step fails the matrix and its detail is printed', () => {
    const results = allPass().map((r) =>
      r.step === 'progress' ? { ...r, ok: false, detail: 'progress 1,2' } : r,
    );
    const { text, ok } = formatMatrix([{ runtime: 'deno', version: '2.9.6', results }]);
    expect(ok).toBe(false);
    expect(text).toContain('deno progress: progress 1,2');
    expect(text.split('\n')[1]?.match(/FAIL/g)).toHaveLength(1);
  });

  test('a step that never ran is a failure, and so is a runtime that did not start', () => {
    const missing = formatMatrix([{ runtime: 'node22', version: '22', results: allPass().slice(0, -1) }]);
    expect(missing.ok).toBe(false);
    expect(missing.text).toContain(`node22 ${STEPS.at(-1)}: not run`);
    const broken = formatMatrix([{ runtime: 'workerd', version: '1', error: 'no URL within 30000 ms' }]);
    expect(broken.ok).toBe(false);
    expect(broken.text).toContain('workerd: no URL within 30000 ms');
    expect(broken.text.split('\n')[1]?.match(/FAIL/g)).toHaveLength(STEPS.length);
  });
});
