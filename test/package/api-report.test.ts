/**
 * Issue 24 point 4: the public API is designed, and a change to it is a visible diff. Each entry
 * point lists its names (no `export *`), the API reports in api/ (API Extractor, from the built
 * declarations) match the build, and the root entry is `keel-mcp/core` plus the high-level server
 * and client, with nothing that needs Node.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../docs/readme-blocks.mjs';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string }>;
};
/** package.json `exports` → the TypeScript source of each entry point. */
const sources = Object.entries(pkg.exports).map(([subpath, target]) => ({
  subpath,
  file: join(ROOT, target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')),
}));

/** The names a module exports, as the compiler resolves them (re-exports followed). */
function exportedNames(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const symbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
      return [file, checker.getExportsOfModule(symbol).map((s) => s.name)];
    }),
  );
}

describe('the entry points', () => {
  test('each lists its names: no `export *` in an entry file', () => {
    for (const { subpath, file } of sources) {
      const text = readFileSync(file, 'utf8');
      expect(text, `${subpath} (${file})`).not.toMatch(/^\s*export\s+(type\s+)?\*/m);
    }
  });

  test('keel-mcp is keel-mcp/core plus McpServer and McpClient, not the transports', () => {
    const root = join(ROOT, 'src/index.ts');
    const core = join(ROOT, 'src/core/index.ts');
    const names = exportedNames([root, core]);
    const rootNames = new Set(names.get(root));
    expect(names.get(core)!.filter((name) => !rootNames.has(name))).toEqual([]);
    for (const name of ['McpServer', 'McpClient', 'McpError', 'ErrorCode', 'toolError', 'CallToolResult'])
      expect(rootNames, name).toContain(name);
    for (const name of ['serveStdio', 'StdioClientTransport', 'createHttpHandler', 'serveHttp'])
      expect(rootNames, name).not.toContain(name);
  });
});

describe('the built package', () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/pkg/index.js')))
      throw new Error('dist/ is missing: run `npm run build` first');
  });

  test('the API reports in api/ match the build (else: `npm run api:update`, commit the diff)', async () => {
    const result = await run(process.execPath, ['scripts/api-report.mjs'], {
      cwd: ROOT,
      timeout: 120_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    // On a difference the script names the reports and says how to update them: shown as is.
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const { subpath } of sources) {
      const name = subpath === '.' ? 'keel-mcp' : `keel-mcp.${subpath.slice(2)}`;
      expect(existsSync(join(ROOT, 'api', `${name}.api.md`)), name).toBe(true);
    }
  }, 120_000);

  test('nothing marked @internal reaches the published types (stripInternal)', () => {
    const leaks = sources.flatMap(({ subpath }) => {
      const name = subpath === '.' ? 'keel-mcp' : `keel-mcp.${subpath.slice(2)}`;
      const report = readFileSync(join(ROOT, 'api', `${name}.api.md`), 'utf8');
      return report
        .split('\n')
        .filter((line) => line.includes('@internal'))
        .map((line) => `${name}: ${line}`);
    });
    expect(leaks).toEqual([]);
  });

  test('keel-mcp loads no node: module, statically (Bun, Deno and workerd run it)', () => {
    const seen = new Set<string>();
    const builtins: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, 'utf8');
      for (const [, specifier] of code.matchAll(/^(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']/gm)) {
        if (specifier!.startsWith('node:')) builtins.push(`${file}: ${specifier}`);
        else if (specifier!.startsWith('.')) visit(resolve(dirname(file), specifier!));
      }
    };
    visit(join(ROOT, 'dist/pkg/index.js'));
    expect(seen.size).toBeGreaterThan(1);
    expect(builtins).toEqual([]);
  });
});
