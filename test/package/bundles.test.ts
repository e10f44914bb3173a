/**
 * Issue 14 (spawn → initialize): every export resolves to a bundle in dist/pkg (scripts/bundle.mjs).
 * A stdio server's imports must stay a handful of files, none from the unbundled dist/src (a
 * regression here is what made spawn 1.9× a bare script); and the bundles must share their classes,
 * or `instanceof` would break between entry points. The web-only code and the two inlined
 * dependencies stay out of a stdio server's start.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROBE = join(ROOT, 'test/package/fixtures/bundle-probe.mjs');
/** What a stdio server may load of Keel's own files (today: server.js, stdio.js and the shared chunk). */
const MAX_KEEL_FILES = 5;

interface Probe {
  stdioServerFiles: string[];
  stdioServerBuiltins: string[];
  sameMcpError: boolean;
  sameConnectionClosed: boolean;
  sameMcpServer: boolean;
  sameMcpClient: boolean;
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
    // The HTTP transport and the adapters live in a chunk of their own, which stdio never needs.
    const withHttp = own.filter((file) =>
      readFileSync(join(ROOT, file), 'utf8').includes('var HttpServerTransport = class'),
    );
    expect(withHttp).toEqual([]);
    // Nor the client's: keel-mcp holds McpClient beside McpServer, in a chunk of its own.
    const withClient = own.filter((file) =>
      readFileSync(join(ROOT, file), 'utf8').includes('var McpClient = class'),
    );
    expect(withClient).toEqual([]);
  });

  test('the two inlined dependencies are not loaded from node_modules, and their licences ship', () => {
    const fromNodeModules = probe.stdioServerFiles
      .map((file) => relative(ROOT, file))
      .filter((file) => /^node_modules\/(@cfworker\/json-schema|url-template)\//.test(file));
    expect(fromNodeModules).toEqual([]);
    const notices = readFileSync(join(ROOT, 'dist/pkg/THIRD-PARTY-NOTICES.md'), 'utf8');
    expect(notices).toContain('## @cfworker/json-schema 4.1.6');
    expect(notices).toContain('## url-template 3.1.1');
    expect(notices).toContain('Copyright (c) 2012-2014, Bram Stein');
    // @cfworker/json-schema declares MIT but ships no licence file: the MIT text is written out.
    expect(notices).toMatch(/## @cfworker\/json-schema[^#]*Permission is hereby granted/);
  });

  test('a stdio server imports only cheap builtins as ES modules', () => {
    // An ES import of a builtin builds a facade over all its exports: node:process costs ~1.6 ms,
    // node:stream ~0.8 ms. The global `process` is the same object, and the client-side stream
    // is required on first spawn.
    expect(probe.stdioServerBuiltins.length).toBeGreaterThan(0);
    expect(
      probe.stdioServerBuiltins.filter((url) => /^node:(process|stream|child_process|crypto)$/.test(url)),
    ).toEqual([]);
  });

  test('entry points share one copy of each class', () => {
    expect(probe.sameMcpError).toBe(true);
    expect(probe.sameConnectionClosed).toBe(true);
    // keel-mcp's McpServer and McpClient are keel-mcp/server's and keel-mcp/client's.
    expect(probe.sameMcpServer).toBe(true);
    expect(probe.sameMcpClient).toBe(true);
  });
});
