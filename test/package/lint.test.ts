/**
 * The packed tarball passes publint and arethetypeswrong, and holds what it should: the library
 * (dist/src, and its bundles in dist/pkg), the sources its source maps name, README and package.json; no examples, benches or
 * tests.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../docs/readme-blocks.mjs';
import { packKeel, type Packed } from './pack.js';

const run = promisify(execFile);
let packed: Packed;

beforeAll(async () => {
  packed = await packKeel();
}, 40_000);
afterAll(() => packed?.remove());

describe('the tarball', () => {
  test('passes publint with no message at any level (strict: warnings count as errors)', async () => {
    const tarball = readFileSync(packed.tarball);
    const { messages, pkg } = await publint({
      pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
      level: 'suggestion',
      strict: true,
    });
    expect(
      messages.map((message) => `${message.type} ${message.code}: ${formatMessage(message, pkg)}`),
    ).toEqual([]);
  });

  test('passes arethetypeswrong for ESM consumers (node16 from ESM, bundler)', async () => {
    // Keel is ESM only ("type": "module", `exports` without `require`): the esm-only profile
    // leaves out node10 resolution (which ignores `exports`) and `require` from CommonJS.
    const cli = join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
    const args = [cli, packed.tarball, '--profile', 'esm-only', '--format', 'json'];
    const result = await run(process.execPath, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code, stdout: error.stdout ?? '' }),
    );
    const report = JSON.parse(result.stdout) as {
      analysis: { entrypoints: Record<string, unknown> };
      problems?: Record<string, { kind: string; entrypoint: string; resolutionKind?: string }[]>;
    };
    const counted = Object.values(report.problems ?? {})
      .flat()
      .filter((problem) => problem.resolutionKind !== 'node10' && problem.resolutionKind !== 'node16-cjs')
      .map((problem) => `${problem.kind} ${problem.entrypoint} (${problem.resolutionKind ?? 'any'})`);
    expect(counted).toEqual([]);
    expect(result.code).toBe(0);
    // Every subpath of the export map was analysed.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(report.analysis.entrypoints).sort()).toEqual(Object.keys(pkg.exports).sort());
  }, 60_000);

  test('holds the library, README and package.json, and nothing from examples, bench or test', () => {
    const outside = packed.files.filter(
      (path) =>
        !/^(dist\/src|dist\/pkg|src)\//.test(path) &&
        !['README.md', 'package.json', 'LICENSE'].includes(path),
    );
    expect(outside).toEqual([]);
    expect(packed.files).toContain('dist/src/index.js');
    expect(packed.files).toContain('dist/src/index.d.ts');
    // The bundles every export resolves to (scripts/bundle.mjs).
    expect(packed.files).toContain('dist/pkg/index.js');
    expect(packed.files).toContain('dist/pkg/server.js');
    expect(packed.files.filter((path) => /\.test\.[jt]s$/.test(path))).toEqual([]);
  });

  test('every source map names sources the tarball holds, or embeds them (inlined dependencies)', () => {
    const files = new Set(packed.files);
    const missing: string[] = [];
    let embedded = 0;
    for (const map of packed.files.filter((path) => path.endsWith('.js.map'))) {
      const { sources, sourcesContent } = JSON.parse(readFileSync(join(ROOT, map), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      const dir = map.split('/').slice(0, -1);
      for (const [index, source] of sources.entries()) {
        // scripts/bundle.mjs copies two small dependencies into the bundles; their maps carry the
        // code itself, since node_modules is not in the tarball.
        if (
          /\/node_modules\/(@cfworker\/json-schema|url-template)\//.test(source) &&
          sourcesContent?.[index]
        ) {
          embedded++;
          continue;
        }
        const parts = [...dir];
        for (const part of source.split('/')) {
          if (part === '..') parts.pop();
          else if (part !== '.') parts.push(part);
        }
        if (!files.has(parts.join('/'))) missing.push(`${map} → ${source}`);
      }
    }
    expect(embedded).toBeGreaterThan(0);
    expect(missing.slice(0, 5)).toEqual([]);
  });
});
