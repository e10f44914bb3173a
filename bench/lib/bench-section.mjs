// One marked section of BENCHMARKS.md (`<!-- <marker>:start -->` … `<!-- <marker>:end -->`), written
// by a bench that runs apart from `npm run bench` (scale-out, adoption), formatted with prettier.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Replace (or append) the section `marker` of BENCH_OUT (default BENCHMARKS.md); the path written. */
export async function writeSection(marker, text) {
  const path = resolve(root, process.env.BENCH_OUT ?? 'BENCHMARKS.md');
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const marked = new RegExp(`<!-- ${marker}:start -->[\\s\\S]*?<!-- ${marker}:end -->`);
  let next = marked.test(current) ? current.replace(marked, text) : `${current.trimEnd()}\n\n${text}\n`;
  const prettier = await import('prettier');
  next = await prettier.format(next, { ...(await prettier.resolveConfig(path)), filepath: path });
  writeFileSync(path, next);
  return path;
}
