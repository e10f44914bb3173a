/**
 * No `eval` and no `Function(...)` in what ships: Keel's built code (dist/src) and every runtime
 * dependency's JavaScript, transitively. Cloudflare workerd refuses code generation from strings,
 * so one such call on a reachable path breaks Keel there (uri-template-lite's did: every
 * `server.resourceTemplate(...)` threw `EvalError`). The scan parses each file (test/runtimes/
 * codegen-scan.ts); the smoke matrix (scripts/runtimes) proves the template path on workerd itself.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../docs/readme-blocks.mjs';
import { runtimePackageDirs, scanCodegen, scanDirectories } from './codegen-scan.js';

describe('the code-generation scanner', () => {
  test('finds eval, Function and new Function calls, however the global is reached', () => {
    const text = [
      'const a = new Function("x", "return x");', // 1
      'const b = Function("$,d", body);', // 2
      'eval(code);', // 3
      'globalThis.eval(code); (0, eval)(code); new self.Function(code);', // 4: three
      'window.Function(code)();', // 5
    ].join('\n');
    expect(scanCodegen('f.js', text).map((use) => use.line)).toEqual([1, 2, 3, 4, 4, 4, 5]);
  });

  test('ignores comments, strings, methods of other objects and the word in other names', () => {
    const text = [
      '// never call eval(x) or new Function(y)',
      'const s = "Function(";',
      'redis.eval(script); isFunction(f); subFunction(v); typeof f === "function";',
      'class Function2 {} new Function2();',
    ].join('\n');
    expect(scanCodegen('g.js', text)).toEqual([]);
  });
});

describe('what ships', () => {
  test('dist/src, the bundles in dist/pkg and the runtime dependencies call neither eval nor Function', () => {
    const dist = join(ROOT, 'dist', 'src');
    const bundles = join(ROOT, 'dist', 'pkg');
    if (!existsSync(join(dist, 'server', 'index.js')) || !existsSync(join(bundles, 'server.js')))
      throw new Error('dist/ is missing: run `npm run build` first');
    const packages = runtimePackageDirs(ROOT);
    // The dependencies Keel declares are all there (a rename or removal must not pass silently).
    expect(packages.map((dir) => relative(join(ROOT, 'node_modules'), dir))).toEqual(
      expect.arrayContaining(['@cfworker/json-schema', 'eventsource-parser', 'jose', 'oauth4webapi']),
    );
    expect(scanDirectories(ROOT, [dist, bundles, ...packages])).toEqual([]);
  });
});
