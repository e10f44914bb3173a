/**
 * Issue 24 point 3: no import cycles under src/, type-only imports included. A cycle of types is
 * still a knot in the design (neither file can be read, moved or tested without the other), and
 * it turns into a run-time cycle the day someone drops a `type` keyword.
 *
 * Every `src/**\/*.ts` file is read with TypeScript's own import scanner (`ts.preProcessFile`:
 * static `import` and `import type`, `export ... from` and `export type ... from`, side-effect
 * imports, `import('literal')` in code and in types; never text in comments or strings). Relative
 * specifiers are resolved the way NodeNext does for this project (`./x.js` is `./x.ts`, a folder
 * is its `index.ts`); the graph's strongly connected components (Tarjan) are the cycles.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

/** Project-relative path with forward slashes: what the failure message names. */
type File = string;
/** file → the project files it imports (each once). */
type Graph = ReadonlyMap<File, ReadonlySet<File>>;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function projectPath(path: string): File {
  return relative(ROOT, path).split('\\').join('/');
}

/** The file a relative specifier names, or undefined when none exists. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const target = resolve(dirname(from), specifier);
  const candidates = [
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.mjs$/, '.mts'),
    target,
    `${target}.ts`,
    join(target, 'index.ts'),
  ];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

interface ReadGraph {
  graph: Graph;
  /** `file: specifier` for each relative import that names no file (a broken reader or import). */
  unresolved: string[];
}

function readGraph(files: readonly string[]): ReadGraph {
  const graph = new Map<File, Set<File>>();
  const unresolved: string[] = [];
  for (const path of files) {
    const imports = new Set<File>();
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue; // a package or node: builtin
      const target = resolveRelative(path, fileName);
      if (target === undefined) unresolved.push(`${projectPath(path)}: ${fileName}`);
      else imports.add(projectPath(target));
    }
    graph.set(projectPath(path), imports);
  }
  return { graph, unresolved };
}

/**
 * The cycles of `graph`: each strongly connected component of more than one file, or of one file
 * that imports itself (Tarjan's algorithm, iterative so that depth is no concern). Files sorted
 * within a cycle, cycles by their first file: the message is the same on every run.
 */
function cyclesOf(graph: Graph): File[][] {
  const index = new Map<File, number>();
  const low = new Map<File, number>();
  const onStack = new Set<File>();
  const stack: File[] = [];
  const cycles: File[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { file: File; targets: Iterator<File> }[] = [];
    const enter = (file: File): void => {
      index.set(file, next);
      low.set(file, next);
      next += 1;
      stack.push(file);
      onStack.add(file);
      work.push({ file, targets: (graph.get(file) ?? new Set<File>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const step = top.targets.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(top.file, Math.min(low.get(top.file)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(top.file)!));
      if (low.get(top.file) !== index.get(top.file)) continue;
      const component: File[] = [];
      let member: File;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.file);
      if (component.length > 1 || graph.get(top.file)?.has(top.file)) cycles.push(component.sort());
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A cycle as the message shows it: its files, then each import that ties two of them. */
function describeCycle(graph: Graph, cycle: readonly File[], n: number): string {
  const members = new Set(cycle);
  const ties = cycle.flatMap((file) =>
    [...(graph.get(file) ?? [])]
      .filter((target) => members.has(target))
      .map((target) => `    ${file} -> ${target}`),
  );
  return [`cycle ${n}: ${cycle.length} file(s): ${cycle.join(', ')}`, ...ties].join('\n');
}

describe('the import cycle finder itself', () => {
  test('finds a loop of two, a loop of three, a self-import, and nothing in a chain', () => {
    const graph: Graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['a', 'c'])],
      ['c', new Set(['d'])],
      ['d', new Set(['e'])],
      ['e', new Set(['c'])],
      ['f', new Set(['f'])],
      ['g', new Set(['a', 'h'])],
      ['h', new Set<string>()],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b'], ['c', 'd', 'e'], ['f']]);
    expect(
      cyclesOf(
        new Map([
          ['x', new Set(['y'])],
          ['y', new Set<string>()],
        ]),
      ),
    ).toEqual([]);
  });

  test('reads every kind of import, type-only included, and ignores comments and strings', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B } from './b.js';",
      "export type { C } from './c.js';",
      "export * from './d.js';",
      "import './e.js';",
      "const f = await import('./f.js');",
      "type G = import('./g.js').G;",
      "// import './comment.js';",
      "const s = `import './string.js'`;",
    ].join('\n');
    const names = ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
    expect(names).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js', './g.js']);
  });
});

describe('src/', () => {
  const { graph, unresolved } = readGraph(sourceFiles(SRC));

  test('every relative import names a file of the project (else the graph below would miss it)', () => {
    expect(unresolved).toEqual([]);
    // The graph is the real one: hundreds of files and their imports, not an empty read.
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('src/server/server.ts')).toContain('src/server/server-session.ts');
  });

  test('issue 24 point 3: no import cycles, type-only imports included', () => {
    const cycles = cyclesOf(graph);
    const message = cycles.map((cycle, i) => describeCycle(graph, cycle, i + 1)).join('\n');
    expect(cycles.length, `import cycles under src/ (type imports count too):\n${message}`).toBe(0);
  });
});
