/**
 * `engines.node` says the true minimum: the newest API the shipped code uses decides it, and
 * docs/package.md states the same version. Adopting a newer API (say `Promise.withResolvers`)
 * fails here until engines and the docs say Node 22.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../docs/readme-blocks.mjs';
import { compareVersions, scanNodeApis, type ApiUse } from './node-apis.js';

/** Keel supports no Node release older than 20, whatever its code would run on. */
const FLOOR = '20.0.0';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};

/** Every file that ships: src/**\/*.ts without tests and declaration files. */
function shippedSources(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return shippedSources(path);
    return /(?<!\.test|\.d)\.ts$/.test(entry.name) ? [path] : [];
  });
}

function usesInSrc(): ApiUse[] {
  return shippedSources().flatMap((path) => scanNodeApis(relative(ROOT, path), readFileSync(path, 'utf8')));
}

/** The minimum the uses imply: the newest `since`, never below the floor. */
function minimumFor(uses: readonly ApiUse[]): string {
  return uses.map((use) => use.since).reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b), FLOOR);
}

describe('the API scanner', () => {
  test('finds static members, prototype methods, imports, globals and syntax', () => {
    const text = [
      "import { styleText } from 'node:util';",
      'const { promise } = Promise.withResolvers<void>();',
      'const both = a.union(b);',
      'const agent = navigator.userAgent;',
      'using handle = open();',
      'const signal = AbortSignal.any([x]);',
    ].join('\n');
    expect(
      scanNodeApis('x.ts', text)
        .map((use) => `${use.line} ${use.api}`)
        .sort(),
    ).toEqual([
      '1 node:util#styleText',
      '2 Promise.withResolvers',
      '3 .union',
      '4 navigator',
      '5 syntax:using',
      '6 AbortSignal.any',
    ]);
  });

  test('ignores comments, strings, property keys and local bindings of the same names', () => {
    const text = [
      '// Promise.withResolvers would be nicer here',
      "const s = 'AbortSignal.any';",
      'const o = { navigator: 1, union: 2 };',
      'function f(navigator: string) { return navigator; }',
    ].join('\n');
    expect(scanNodeApis('x.ts', text)).toEqual([]);
  });

  test('the newest API decides the minimum, and the floor holds without any', () => {
    const uses = scanNodeApis('x.ts', 'AbortSignal.any([a]); Object.groupBy(x, f); b.toSorted();');
    expect(minimumFor(uses)).toBe('21.0.0');
    expect(minimumFor([])).toBe(FLOOR);
  });
});

describe('engines.node', () => {
  test('is ">=" the newest API the shipped code uses', () => {
    const uses = usesInSrc();
    const minimum = minimumFor(uses);
    const deciding = uses.filter((use) => use.since === minimum).map((u) => `${u.api} (${u.file}:${u.line})`);
    expect(pkg.engines.node, `the code needs Node ${minimum}: ${deciding.join(', ')}`).toBe(`>=${minimum}`);
  });

  test('docs/package.md states the same minimum', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'package.md'), 'utf8');
    const stated = /^Keel needs \*\*Node\.js (\d+\.\d+\.\d+)\*\* or later/m.exec(doc)?.[1];
    expect(stated, 'docs/package.md: "Keel needs **Node.js x.y.z** or later"').toBeDefined();
    expect(`>=${stated}`).toBe(pkg.engines.node);
  });

  test('every runtime dependency runs on that minimum', () => {
    const minimum = pkg.engines.node.replace(/^>=/, '');
    for (const name of Object.keys(pkg.dependencies)) {
      const range = (
        JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
          engines?: { node?: string };
        }
      ).engines?.node;
      if (range === undefined) continue;
      // Ranges of the forms ">=x[.y[.z]]" and "^x.y.z", joined by "||", are all the dependencies
      // declare today (url-template: "^12.20.0 || ^14.13.1 || >=16.0.0"); another form needs a
      // human to read it. The minimum must satisfy one alternative.
      const alternatives = range.split('||').map((part) => {
        const parsed = /^(>=|\^)\s*(\d+(?:\.\d+){0,2})$/.exec(part.trim());
        expect(parsed, `${name} declares engines.node "${range}"`).not.toBeNull();
        const [, operator, version] = parsed!;
        const sameMajor = version!.split('.')[0] === minimum.split('.')[0];
        return compareVersions(minimum, version!) >= 0 && (operator === '>=' || sameMajor);
      });
      expect(alternatives.includes(true), `${name} needs Node ${range}`).toBe(true);
    }
  });
});
