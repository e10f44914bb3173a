import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadRuntimeModule, repoRoot, type InstallModule } from './runtime-modules.js';

const { RUNTIMES, ensureRuntime } = await loadRuntimeModule<InstallModule>('lib/install.mjs');

let cacheDir = '';
afterEach(() => {
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  cacheDir = '';
});

// What a finished install leaves: the package's manifest, its binary and the runner's marker.
function fakeInstall(name: string, version: string, { marker = true } = {}): string {
  const runtime = RUNTIMES[name]!;
  const pkgDir = join(cacheDir, name, 'node_modules', ...runtime.pkg.split('/'));
  mkdirSync(dirname(join(pkgDir, runtime.entry)), { recursive: true });
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: runtime.pkg, version }));
  writeFileSync(join(pkgDir, runtime.entry), '');
  if (marker) writeFileSync(join(cacheDir, name, `.installed-${runtime.version}`), '');
  return join(pkgDir, runtime.entry);
}

describe('pinned runtimes', () => {
  test('the five runtimes in run order, each an exact version of a platform package', () => {
    expect(Object.keys(RUNTIMES)).toEqual(['node22', 'node24', 'bun', 'deno', 'workerd']);
    for (const runtime of Object.values(RUNTIMES)) expect(runtime.version).toMatch(/^\d+\.\d+\.\d+$/);
    // The wrapper packages `deno` and `workerd` run install scripts; the binaries' own packages do not.
    expect(RUNTIMES.deno?.pkg).toBe('@deno/linux-x64-glibc');
    expect(RUNTIMES.workerd?.pkg).toBe('@cloudflare/workerd-linux-64');
  });

  test('a finished install of the pinned version is used as it is: npm is not run', async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'keel-runtimes-'));
    const entry = fakeInstall('bun', RUNTIMES.bun!.version);
    const logged: string[] = [];
    const bin = await ensureRuntime(cacheDir, 'bun', {
      logDir: join(cacheDir, 'logs'),
      log: (line) => logged.push(line),
    });
    expect(bin).toBe(entry);
    expect(logged).toEqual([]);
  });

  test('an unknown runtime is refused with the known names', async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'keel-runtimes-'));
    await expect(ensureRuntime(cacheDir, 'nodejs', { logDir: cacheDir })).rejects.toThrow(
      'unknown runtime "nodejs"; known: node22, node24, bun, deno, workerd',
    );
  });
});

describe('the install-only entry (scripts/runtimes/install.mjs)', () => {
  /** Every module `file` imports with a relative path, transitively. */
  function relativeImports(file: string, seen = new Set<string>()): Set<string> {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^import [^'"]*['"](\.[^'"]+)['"]/gm)) {
      const target = resolve(dirname(file), spec!);
      if (seen.has(target)) continue;
      seen.add(target);
      if (!target.includes(`${sep}dist${sep}`)) relativeImports(target, seen);
    }
    return seen;
  }

  // .ci/run runs it on a fresh clone before `npm test` builds dist/ (issue 30 item 8).
  test('imports nothing from dist/, so it runs before the build', () => {
    const imports = [...relativeImports(join(repoRoot, 'scripts', 'runtimes', 'install.mjs'))];
    expect(imports).toContain(join(repoRoot, 'scripts', 'runtimes', 'lib', 'install.mjs'));
    expect(imports.filter((file) => file.includes(`${sep}dist${sep}`))).toEqual([]);
  });

  test('refuses an unknown runtime with exit code 1 before installing anything', () => {
    const run = spawnSync(
      process.execPath,
      [join(repoRoot, 'scripts', 'runtimes', 'install.mjs'), 'nodejs'],
      {
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('unknown runtime "nodejs"');
  });
});
