/**
 * The CLI's dependencies (commander, @clack/prompts) and its code load only from the `keel` bin:
 * no entry point of the package's export map reaches them, statically or through `import()`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { requireBuiltBin, ROOT } from './helpers.js';

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** Every file and bare package the compiled module graph of `entry` reaches. */
function graph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (specifier!.startsWith('.')) {
        const target = resolve(dirname(file), specifier!);
        if (existsSync(target)) pending.push(target);
      } else if (!specifier!.startsWith('node:')) {
        packages.add(
          specifier!.startsWith('@')
            ? specifier!.split('/').slice(0, 2).join('/')
            : specifier!.split('/')[0]!,
        );
      }
    }
  }
  return { files, packages };
}

test('no library entry point reaches src/cli, commander or @clack/prompts; the bin does', () => {
  requireBuiltBin();
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
    bin: Record<string, string>;
  };
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const { files, packages } = graph(join(ROOT, target.default));
    expect(
      [...files].filter((f) => f.includes(join('dist', 'src', 'cli') + '/')),
      subpath,
    ).toEqual([]);
    expect(
      [...packages].filter((p) => p === 'commander' || p === '@clack/prompts'),
      subpath,
    ).toEqual([]);
  }
  const bin = graph(join(ROOT, pkg.bin.keel!));
  expect(bin.packages).toContain('commander');
  expect(bin.packages).toContain('@clack/prompts');
});
