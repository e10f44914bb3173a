/**
 * Keeps the code blocks of README.md and of the guides in docs/*.md identical to code that is
 * compiled and run.
 *
 * A fenced block directly after `<!-- file: examples/x.ts -->` must equal that file. Those files
 * import the package by name (`keel-mcp/server`, ...), as users do (tsconfig.json "paths" and the
 * vitest alias map the names to src/; at run time Node resolves them to dist/pkg through the
 * package's own `exports`); a relative `src/.../index.js` import would be shown as its package
 * subpath, but readme-sync.test.ts refuses those in a shown file. A block after `<!-- snippet: name -->` must equal the region
 * `// #region name` … `// #endregion` of a file in test/docs/snippets/, dedented and formatted
 * with the project's Prettier settings (so `prettier --write README.md` leaves the blocks alone).
 *
 *   node test/docs/readme-blocks.mjs           # report blocks that differ (exit 1 if any)
 *   node test/docs/readme-blocks.mjs --write   # rewrite those blocks in README.md and docs/*.md
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SNIPPETS = join('test', 'docs', 'snippets');
const MARKER = /^<!-- (file|snippet): (\S+) -->$/;
const FENCE = /^```/;

/** The checked Markdown files, repository-relative: README.md first, then docs/*.md by name. */
export function markdownFiles(root = ROOT) {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** Remove the common leading indentation of the non-blank lines. */
function dedent(lines) {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)[0].length);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((line) => line.slice(cut)).join('\n');
}

/** Every `#region` of the snippet files: name → { file, text }. Throws on a duplicate or an open region. */
export function readRegions(root = ROOT) {
  const regions = new Map();
  for (const name of readdirSync(join(root, SNIPPETS))
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const file = join(SNIPPETS, name);
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    let open;
    for (const line of lines) {
      const start = /^\s*\/\/ #region (\S+)\s*$/.exec(line);
      if (start) {
        if (open) throw new Error(`${file}: region ${start[1]} opens inside region ${open.name}`);
        if (regions.has(start[1])) throw new Error(`${file}: duplicate region ${start[1]}`);
        open = { name: start[1], lines: [] };
      } else if (/^\s*\/\/ #endregion\s*$/.test(line)) {
        if (!open) throw new Error(`${file}: #endregion without #region`);
        regions.set(open.name, { file, text: dedent(open.lines) });
        open = undefined;
      } else if (open) {
        open.lines.push(line);
      }
    }
    if (open) throw new Error(`${file}: region ${open.name} is never closed`);
  }
  return regions;
}

/** package.json `exports` as source file (`src/server/index.js`) → import specifier (`keel-mcp/server`). */
export function publicSpecifiers(root = ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const map = new Map();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    // The compiled module of each entry point (the `types` sit beside it; `default` is its bundle).
    const file = target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.js');
    map.set(file, subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`);
  }
  return map;
}

/** A repository file as a user would write it: relative imports of entry points → package subpaths. */
export function publicFileText(file, root = ROOT) {
  const specifiers = publicSpecifiers(root);
  const text = readFileSync(join(root, file), 'utf8').replace(/\n$/, '');
  return text.replace(/from '(\.{1,2}\/[^']+)'/g, (whole, spec) => {
    const target = relative(root, resolve(root, dirname(file), spec))
      .split('\\')
      .join('/');
    const mapped = specifiers.get(target);
    if (!mapped) throw new Error(`${file}: import ${spec} is not a public entry point`);
    return `from '${mapped}'`;
  });
}

/** `text` formatted as TypeScript with the repository's Prettier settings. */
async function formatted(text, root) {
  const options = (await prettier.resolveConfig(join(root, 'README.md'))) ?? {};
  return (await prettier.format(text, { ...options, parser: 'typescript' })).replace(/\n$/, '');
}

/**
 * The marked blocks of a Markdown file: where each is, what it holds and what it should hold.
 * `file` (repository-relative) only names the file in errors and in the blocks returned.
 *
 * @example
 * for (const b of await markedBlocks(readme)) if (b.actual !== b.expected) console.log(b.line, b.name);
 */
export async function markedBlocks(markdown, root = ROOT, file = 'README.md', regions = readRegions(root)) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (!marker) continue;
    const [, kind, name] = marker;
    let open = i + 1;
    while (open < lines.length && lines[open].trim() === '') open++;
    if (!FENCE.test(lines[open] ?? '')) {
      throw new Error(`${file} line ${i + 1}: ${kind} marker not followed by a code fence`);
    }
    let close = open + 1;
    while (close < lines.length && !FENCE.test(lines[close])) close++;
    if (close >= lines.length) throw new Error(`${file} line ${open + 1}: code fence never closed`);
    let source;
    if (kind === 'file') source = publicFileText(name, root);
    else if (regions.has(name)) source = regions.get(name).text;
    else throw new Error(`${file} line ${i + 1}: no region named ${name} in ${SNIPPETS}`);
    const expected = await formatted(source, root);
    const actual = lines.slice(open + 1, close).join('\n');
    blocks.push({ file, kind, name, line: open + 1, open, close, actual, expected });
  }
  return blocks;
}

/** The marked blocks of README.md and docs/*.md, in file order. */
export async function allMarkedBlocks(root = ROOT) {
  const regions = readRegions(root);
  const blocks = [];
  for (const file of markdownFiles(root)) {
    blocks.push(...(await markedBlocks(readFileSync(join(root, file), 'utf8'), root, file, regions)));
  }
  return blocks;
}

/** Rewrite every marked block that differs in README.md and docs/*.md; returns `file: name` of each. */
export async function writeMarkdown(root = ROOT) {
  const regions = readRegions(root);
  const changed = [];
  for (const file of markdownFiles(root)) {
    const path = join(root, file);
    const lines = readFileSync(path, 'utf8').split('\n');
    const here = [];
    // Bottom-up, so earlier line numbers stay valid.
    for (const block of (await markedBlocks(lines.join('\n'), root, file, regions)).reverse()) {
      if (block.actual === block.expected) continue;
      lines.splice(block.open + 1, block.close - block.open - 1, ...block.expected.split('\n'));
      here.push(`${file}: ${block.name}`);
    }
    if (here.length > 0) writeFileSync(path, lines.join('\n'));
    changed.push(...here.reverse());
  }
  return changed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  if (process.argv.includes('--write')) {
    const changed = await writeMarkdown();
    console.log(
      changed.length === 0 ? 'README.md and docs/ are up to date' : `rewrote: ${changed.join(', ')}`,
    );
  } else {
    const stale = (await allMarkedBlocks()).filter((b) => b.actual !== b.expected);
    for (const block of stale)
      console.log(`${block.file}:${block.line}  ${block.kind} ${block.name} differs`);
    console.log(
      stale.length === 0
        ? 'README.md and docs/ are up to date'
        : 'run: node test/docs/readme-blocks.mjs --write',
    );
    process.exitCode = stale.length === 0 ? 0 : 1;
  }
}
