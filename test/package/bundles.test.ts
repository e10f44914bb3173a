/**
 * Issue 14 (spawn → initialize): every export resolves to a bundle in dist/pkg (scripts/bundle.mjs).
 * A stdio server's imports must stay a handful of files, none from the unbundled dist/src (a
 * regression here is what made spawn 1.9× a bare script); and the bundles must share their classes,
 * or `instanceof` would break between entry points.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROBE = join(ROOT, 'test/package/fixtures/bundle-probe.mjs');
/** What a stdio server may load of Keel's own files (today: server.js, stdio.js and the shared chunk). */
const MAX_KEEL_FILES = 5;

interface Probe {
  stdioServerFiles: string[];
  sameMcpError: boolean;
  sameConnectionClosed: boolean;
}

let probe: Probe;
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/pkg/server.js')))
    throw new Error('dist/pkg is missing: run `npm run build` first');
  probe = JSON.parse(
    execFileSync(process.execPath, [PROBE], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 }),
  ) as Probe;
});

describe('the bundles in dist/pkg', () => {
  test('keel-mcp/server + keel-mcp/stdio load a handful of bundled files, nothing from dist/src', () => {
    const own = probe.stdioServerFiles
      .map((file) => relative(ROOT, file))
      .filter((file) => !file.startsWith('node_modules/'));
    expect(own.filter((file) => !file.startsWith('dist/pkg/'))).toEqual([]);
    expect(own).toContain('dist/pkg/server.js');
    expect(own).toContain('dist/pkg/stdio.js');
    expect(own.length).toBeLessThanOrEqual(MAX_KEEL_FILES);
  });

  test('entry points share one copy of each class', () => {
    expect(probe.sameMcpError).toBe(true);
    expect(probe.sameConnectionClosed).toBe(true);
  });
});
