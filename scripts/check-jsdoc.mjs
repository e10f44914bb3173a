#!/usr/bin/env node
/**
 * Lists every public export of Keel whose JSDoc has no `@example`.
 *
 * "Public" = reachable from a package.json `exports` entry point. The TypeScript compiler resolves
 * each entry's exports (through `export *` and re-exports) to their declarations, so a symbol
 * exported from several entry points is reported once, at the place to fix it.
 *
 *   node scripts/check-jsdoc.mjs          # human-readable list; exit 1 if anything is missing
 *   node scripts/check-jsdoc.mjs --json   # { entryPoints, checked, exports: [...], missing: [...] }
 */
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The source files behind the package.json `exports` subpaths. */
export const ENTRY_POINTS = [
  'src/index.ts',
  'src/core/index.ts',
  'src/server/index.ts',
  'src/client/index.ts',
  'src/transports/memory/index.ts',
  'src/hosts/stdio/index.ts',
  'src/hosts/http/index.ts',
  'src/adapters/node/index.ts',
  'src/adapters/express/index.ts',
  'src/adapters/fastify/index.ts',
  'src/adapters/redis/index.ts',
  'src/telemetry/index.ts',
];

const KINDS = [
  [ts.SyntaxKind.ClassDeclaration, 'class'],
  [ts.SyntaxKind.FunctionDeclaration, 'function'],
  [ts.SyntaxKind.InterfaceDeclaration, 'interface'],
  [ts.SyntaxKind.TypeAliasDeclaration, 'type'],
  [ts.SyntaxKind.VariableDeclaration, 'const'],
  [ts.SyntaxKind.EnumDeclaration, 'enum'],
];

function kindOf(declaration) {
  return KINDS.find(([kind]) => declaration.kind === kind)?.[1];
}

/** True if one of the JSDoc blocks attached to `declaration` has an `@example` tag. */
function hasExample(declaration) {
  return ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'example');
}

/**
 * Check the public API. Returns every public export (name, kind, file, line, the entry points
 * that export it, whether it has an example) and the list of those that lack an `@example`.
 *
 * @example
 * const { missing } = checkJsdoc();
 * for (const m of missing) console.log(`${m.file}:${m.line} ${m.kind} ${m.name}`);
 */
export function checkJsdoc(root = ROOT) {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const entryFiles = ENTRY_POINTS.map((entry) => join(root, entry));
  const program = ts.createProgram(entryFiles, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();

  const seen = new Map();
  for (const entryFile of entryFiles) {
    const source = program.getSourceFile(entryFile);
    if (!source) throw new Error(`Entry point not found: ${relative(root, entryFile)}`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue; // an entry with no exports at all
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declarations = (symbol.declarations ?? []).filter((d) => kindOf(d) !== undefined);
      if (declarations.length === 0) continue;
      const first = declarations[0];
      const file = first.getSourceFile();
      const key = `${file.fileName}:${first.pos}`;
      const existing = seen.get(key);
      if (existing) {
        existing.entryPoints.add(relative(root, entryFile));
        continue;
      }
      const { line } = file.getLineAndCharacterOfPosition(first.getStart());
      seen.set(key, {
        name: symbol.getName(),
        kind: kindOf(first),
        file: relative(root, file.fileName),
        line: line + 1,
        ok: declarations.some(hasExample),
        entryPoints: new Set([relative(root, entryFile)]),
      });
    }
  }

  const all = [...seen.values()].map(({ ok, ...item }) => ({
    ...item,
    entryPoints: [...item.entryPoints],
    hasExample: ok,
  }));
  all.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return {
    entryPoints: ENTRY_POINTS,
    checked: all.length,
    exports: all,
    missing: all.filter((item) => !item.hasExample).map(({ hasExample: _h, ...item }) => item),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = checkJsdoc();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    for (const item of result.missing) {
      console.log(`${item.file}:${item.line}  ${item.kind} ${item.name}`);
    }
    console.log(
      `${result.checked} public exports checked, ${result.missing.length} without an @example in their JSDoc`,
    );
  }
  process.exitCode = result.missing.length === 0 ? 0 : 1;
}
