/**
 * Every public export (reachable from a package.json `exports` entry point) has JSDoc with an
 * `@example` — DESIGN §6. The check itself is scripts/check-jsdoc.mjs (TypeScript compiler API).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { ROOT } from './readme-blocks.mjs';

const run = promisify(execFile);

interface ExportInfo {
  name: string;
  kind: string;
  file: string;
  line: number;
  entryPoints: string[];
  hasExample: boolean;
}
interface Report {
  entryPoints: string[];
  checked: number;
  exports: ExportInfo[];
  missing: Omit<ExportInfo, 'hasExample'>[];
}

let cached: Promise<Report> | undefined;
function report(): Promise<Report> {
  return (cached ??= check());
}

async function check(): Promise<Report> {
  const { stdout } = await run(process.execPath, ['scripts/check-jsdoc.mjs', '--json'], {
    cwd: ROOT,
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as Report;
}

test('the checker covers every package.json entry point', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
  };
  const sources = Object.values(pkg.exports).map((target) =>
    target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'),
  );
  const { entryPoints, exports } = await report();
  expect([...entryPoints].sort()).toEqual([...sources].sort());
  // The walk reaches the main API (a broken walk would find nothing and pass vacuously).
  const names = new Set(exports.map((e) => e.name));
  for (const name of [
    'McpServer',
    'McpClient',
    'serveStdio',
    'createHttpHandler',
    'ErrorCode',
    'Transport',
  ]) {
    expect(names, name).toContain(name);
  }
}, 60_000);

test('every public export has JSDoc with an @example', async () => {
  const { missing } = await report();
  expect(missing.map((m) => `${m.file}:${m.line} ${m.kind} ${m.name}`)).toEqual([]);
}, 60_000);
