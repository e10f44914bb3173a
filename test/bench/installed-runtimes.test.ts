/**
 * Issue 30 item 8: the tests that need Bun or Deno skip without them only off CI. In CI a missing
 * runtime fails them (as a missing redis-server fails the Redis tests), and `.ci/run` installs
 * both before `npm test`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { runningInCi } from '../helpers/ci.js';
import { loadRuntimeModule, type InstallModule } from '../runtimes/runtime-modules.js';
import { installedRuntime, runtimeAvailable } from './installed-runtimes.js';

const { RUNTIMES } = await loadRuntimeModule<InstallModule>('lib/install.mjs');

let root = '';
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = '';
});

test.each([
  [{ CI: 'true' }, true],
  [{ CI: '1' }, true],
  [{ CI: 'false' }, false],
  [{ CI: '0' }, false],
  [{ CI: '' }, false],
  [{}, false],
])('CI=%o counts as CI: %s', (env, ci) => {
  expect(runningInCi(env)).toBe(ci);
});

test('a missing runtime: not available off CI (the test skips), an error naming the fix in CI', () => {
  root = mkdtempSync(join(tmpdir(), 'keel-runtimes-'));
  expect(runtimeAvailable('bun', {}, root)).toBe(false);
  expect(() => runtimeAvailable('bun', { CI: 'true' }, root)).toThrow(
    /^bun is required here \(CI is set\) but is not installed in \.runtimes\/: `node scripts\/runtimes\/install\.mjs bun deno`/,
  );
});

test('an installed runtime is available, in CI or not', () => {
  root = mkdtempSync(join(tmpdir(), 'keel-runtimes-'));
  const runtime = RUNTIMES.deno!;
  const bin = join(root, '.runtimes', 'deno', 'node_modules', ...runtime.pkg.split('/'), runtime.entry);
  mkdirSync(dirname(bin), { recursive: true });
  writeFileSync(bin, '');
  expect(installedRuntime('deno', root)).toBe(bin);
  expect(runtimeAvailable('deno', {}, root)).toBe(true);
  expect(runtimeAvailable('deno', { CI: 'true' }, root)).toBe(true);
});
