/**
 * Issue 24 point 5: tests go through the front door. A test of public behaviour imports what a
 * user imports (`keel-mcp/server`, `keel-mcp/client`, ...: vitest.config.ts and tsconfig.json map
 * those names to src/), so moving or renaming a module of src/ touches the tests of that module,
 * not every test that happens to use a class it declares. This test fails when a test file imports,
 * through a relative path into src/, a name that an entry point of package.json "exports" exports,
 * and says which entry to import it from.
 *
 * The entries' exports are read with TypeScript's checker (re-exports followed to the declaration),
 * so the rule follows the public surface as it changes. Names are matched by identity, not by
 * spelling: an internal helper that shares a public name stays importable from its module. Every
 * form of import is read (`import`, `import type`, `export … from`, `await import()` destructured,
 * `import('…').T`). Left alone: imports from a module the same file replaces with `vi.mock` (the
 * mock needs that module id), and `import * as` of an internal module (which names it uses is not
 * in the import; of an entry file it is flagged: the whole module is public).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const projectPath = (path: string): string => relative(ROOT, path).split('\\').join('/');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string }>;
};

/** Each entry point: its package name (`keel-mcp/server`) and its source file (`src/server/index.ts`). */
const ENTRIES = Object.entries(pkg.exports).map(([subpath, target]) => ({
  name: subpath === '.' ? 'keel-mcp' : `keel-mcp${subpath.slice(1)}`,
  file: target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'),
}));

const SOURCES = files('src').filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));

// One program over src/ alone: no lib, no @types, no dependency (only relative specifiers are
// resolved), which is all the checker needs to follow exports, and keeps this test near a second.
const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  noLib: true,
  types: [],
  noEmit: true,
};
const host = ts.createCompilerHost(OPTIONS, true);
host.resolveModuleNameLiterals = (literals, containingFile, _redirect, options) =>
  literals.map((literal) =>
    literal.text.startsWith('.')
      ? ts.resolveModuleName(literal.text, containingFile, options, host)
      : { resolvedModule: undefined },
  );
const program = ts.createProgram({
  rootNames: SOURCES.map((file) => join(ROOT, file)),
  options: OPTIONS,
  host,
});
const checker = program.getTypeChecker();

const exportsCache = new Map<string, ReadonlyMap<string, ts.Symbol>>();

/** A module's exports by name, each followed through its re-exports to what it names. */
function exportsOf(file: string): ReadonlyMap<string, ts.Symbol> {
  let exports = exportsCache.get(file);
  if (exports === undefined) exportsCache.set(file, (exports = readExports(file)));
  return exports;
}

function readExports(file: string): ReadonlyMap<string, ts.Symbol> {
  const source = program.getSourceFile(join(ROOT, file));
  const module = source && checker.getSymbolAtLocation(source);
  if (module === undefined) return new Map();
  return new Map(
    checker
      .getExportsOfModule(module)
      .map((symbol) => [
        symbol.name,
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
      ]),
  );
}

/** Every public symbol, with the entries that export it. */
const PUBLIC = new Map<ts.Symbol, (typeof ENTRIES)[number][]>();
for (const entry of ENTRIES)
  for (const symbol of exportsOf(entry.file).values())
    PUBLIC.set(symbol, [...(PUBLIC.get(symbol) ?? []), entry]);

/**
 * The entry a user imports `symbol` from: the one whose folder holds its declaration (the
 * "one home per name" of docs/entry-points.md: `McpError` from `keel-mcp/core`, `McpServer` from
 * `keel-mcp/server`), else the only entry besides the root that exports it, else the root.
 */
function homeOf(symbol: ts.Symbol): string {
  const entries = PUBLIC.get(symbol)!;
  const declared = projectPath(symbol.declarations?.[0]?.getSourceFile().fileName ?? '');
  const holding = entries
    .filter((entry) => entry.name !== 'keel-mcp' && declared.startsWith(posix.dirname(entry.file) + '/'))
    .sort((a, b) => b.file.length - a.file.length);
  if (holding[0]) return holding[0].name;
  const named = entries.filter((entry) => entry.name !== 'keel-mcp').map((entry) => entry.name);
  return named.length === 0 ? 'keel-mcp' : named.join(' or ');
}

/** One import of a test file: the name it takes from `specifier`, or undefined for the whole module. */
interface Use {
  name: string | undefined;
  specifier: string;
  line: number;
}

function usesOf(file: ts.SourceFile): { uses: Use[]; mocked: string[] } {
  const uses: Use[] = [];
  const mocked: string[] = [];
  const use = (node: ts.Node, specifier: string, names: readonly (string | undefined)[]): void => {
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    for (const name of names) uses.push({ name, specifier, line });
  };
  const bound = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>): string[] =>
    elements.map((element) => (element.propertyName ?? element.name).text);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const bindings = node.importClause?.namedBindings;
      const names: (string | undefined)[] = [];
      if (node.importClause?.name) names.push('default');
      if (bindings && ts.isNamedImports(bindings)) names.push(...bound(bindings.elements));
      else if (bindings || !node.importClause) names.push(undefined);
      use(node, node.moduleSpecifier.text, names);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      use(
        node,
        node.moduleSpecifier.text,
        clause && ts.isNamedExports(clause) ? bound(clause.elements) : [undefined],
      );
    } else if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      const specifier = node.arguments[0].text;
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        // `const { A, B: b } = await import('…')` names A and B; any other shape, the whole module.
        const declaration = ts.isAwaitExpression(node.parent) ? node.parent.parent : undefined;
        const pattern = declaration && ts.isVariableDeclaration(declaration) ? declaration.name : undefined;
        const names =
          pattern && ts.isObjectBindingPattern(pattern)
            ? pattern.elements.map((element) => {
                const key = element.propertyName ?? element.name;
                return ts.isIdentifier(key) ? key.text : undefined;
              })
            : [undefined];
        use(node, specifier, names);
      } else if (/^vi\.(mock|doMock)$/.test(node.expression.getText(file))) mocked.push(specifier);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) {
        let qualifier = node.qualifier;
        while (qualifier && ts.isQualifiedName(qualifier)) qualifier = qualifier.left;
        use(node, literal.text, [qualifier?.text]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { uses, mocked };
}

/** The file of src/ that `specifier` names from `file` (both relative to the root), if it is one. */
function targetOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const resolved = ts.resolveModuleName(specifier, join(ROOT, file), OPTIONS, host).resolvedModule;
  const target = resolved && projectPath(resolved.resolvedFileName);
  return target?.startsWith('src/') ? target : undefined;
}

/** The imports of test file `file` (text `source`) that should come through an entry point. */
function violationsOf(file: string, source: string): string[] {
  const { uses, mocked } = usesOf(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  const mockedTargets = new Set(mocked.map((specifier) => targetOf(file, specifier)));
  const violations: string[] = [];
  for (const { name, specifier, line } of uses) {
    const target = targetOf(file, specifier);
    if (target === undefined || mockedTargets.has(target)) continue;
    const at = `${file}:${line}`;
    if (name === undefined) {
      const entry = ENTRIES.find((candidate) => candidate.file === target);
      if (entry) violations.push(`${at}: '${specifier}' is the entry point: import '${entry.name}' instead`);
      continue;
    }
    const symbol = exportsOf(target).get(name);
    if (symbol !== undefined && PUBLIC.has(symbol))
      violations.push(`${at}: ${name} from '${specifier}': import it from '${homeOf(symbol)}'`);
  }
  return violations;
}

/** Test files: what vitest runs and what they import (helpers, fixtures' declarations, doc snippets). */
const TESTS = [
  ...files('test').filter((file) => /\.m?ts$/.test(file)),
  ...files('src').filter((file) => file.endsWith('.test.ts')),
];

describe('tests through the front door (issue 24 point 5)', () => {
  test('no test imports a public name through a relative path into src/', () => {
    expect(TESTS.length).toBeGreaterThan(300);
    expect(PUBLIC.size).toBeGreaterThan(300);
    const violations = TESTS.flatMap((file) => violationsOf(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(violations).toEqual([]);
  });

  test('the scan sees every form of import and names the entry to use', () => {
    // Built from where the names live today, so the check survives a module's move or rename.
    const from = (entry: string, name: string): string => {
      const file = ENTRIES.find((candidate) => candidate.name === entry)!.file;
      const symbol = exportsOf(file).get(name)!;
      const declared = projectPath(symbol.declarations![0]!.getSourceFile().fileName);
      return posix.relative('test/x', declared).replace(/\.ts$/, '.js');
    };
    const server = from('keel-mcp/server', 'McpServer');
    const errors = from('keel-mcp/core', 'McpError');
    const stdio = from('keel-mcp/stdio', 'serveStdio');
    const memory = from('keel-mcp/memory', 'createMemoryPair');
    const browser = from('keel-mcp/node', 'openBrowser');
    // An internal module and a name of it that no entry exports: a unit test may import those.
    const internal = [...program.getSourceFiles()]
      .map((source) => projectPath(source.fileName))
      .filter((file) => file.startsWith('src/'))
      .sort()
      .flatMap((file) =>
        [...exportsOf(file)].filter(([, symbol]) => !PUBLIC.has(symbol)).map(([name]) => ({ file, name })),
      )[0]!;
    const source = [
      `import { McpServer, type McpServer as Same } from '${server}';`,
      `import type { McpError } from '${errors}';`,
      `export { createMemoryPair } from '${memory}';`,
      `const { serveStdio: serve } = await import('${stdio}');`,
      `type S = import('${server}').McpServer;`,
      `import * as entry from '../../src/server/index.js';`,
      `import { McpError as E } from '../../src/server/index.js';`,
      `import { McpServer as Ok } from 'keel-mcp/server';`,
      `import { ${internal.name} } from '${posix.relative('test/x', internal.file).replace(/\.ts$/, '.js')}';`,
      `const lazy = await import('${server}');`,
      `import { openBrowser } from '${browser}';`,
      `vi.mock('${browser}', () => ({ openBrowser: () => undefined }));`,
    ].join('\n');
    expect(violationsOf('test/x/a.test.ts', source)).toEqual([
      `test/x/a.test.ts:1: McpServer from '${server}': import it from 'keel-mcp/server'`,
      `test/x/a.test.ts:1: McpServer from '${server}': import it from 'keel-mcp/server'`,
      `test/x/a.test.ts:2: McpError from '${errors}': import it from 'keel-mcp/core'`,
      `test/x/a.test.ts:3: createMemoryPair from '${memory}': import it from 'keel-mcp/memory'`,
      `test/x/a.test.ts:4: serveStdio from '${stdio}': import it from 'keel-mcp/stdio'`,
      `test/x/a.test.ts:5: McpServer from '${server}': import it from 'keel-mcp/server'`,
      `test/x/a.test.ts:6: '../../src/server/index.js' is the entry point: import 'keel-mcp/server' instead`,
      `test/x/a.test.ts:7: McpError from '../../src/server/index.js': import it from 'keel-mcp/core'`,
    ]);
  });
});
