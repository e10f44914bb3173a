// The tests' TypeScript helpers (test/helpers/*.ts: Redis, the round-robin proxy) for plain
// scripts (the scale-out benches, the soak): transpiled into bench/.work/ with the helpers they
// import (they import only node:*).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = join(root, 'bench', '.work');

/**
 * A TypeScript helper of the tests (test/helpers/<name>.ts), transpiled into bench/.work/ with the
 * helpers it imports (`./ci.js` and the like; they import only node:*).
 */
export async function helper(name) {
  transpile(name, new Set());
  return import(pathToFileURL(join(work, `${name}.js`)).href);
}

function transpile(name, done) {
  if (done.has(name)) return;
  done.add(name);
  mkdirSync(work, { recursive: true });
  const source = readFileSync(join(root, 'test', 'helpers', `${name}.ts`), 'utf8');
  for (const [, sibling] of source.matchAll(/from '\.\/([\w-]+)\.js'/g)) transpile(sibling, done);
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  // `.js`, as the sources' imports name them (ES modules: the package's "type" is "module").
  writeFileSync(join(work, `${name}.js`), outputText);
}
