/**
 * Issue 24 point 1: the folders of src/ are layers, and a file imports only from its own layer and
 * the layers below it (DESIGN.md §3). The table below is the rule; this test reads every import
 * specifier of every source file (static imports, `import type`, `export … from`, `import()` and
 * `import('…').T` with a string literal, `require('…')`) and fails on any import the table does
 * not allow. A new top-level folder under src/ fails until it is given a row.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Layer =
  'core' | 'transports' | 'server' | 'hosts' | 'client' | 'adapters' | 'cli' | 'telemetry' | 'entry';

/**
 * What each layer may import. core: runtime-neutral basics. transports: implementations of the
 * Transport contract and the wire pieces they share. server: McpServer and the low-level Server.
 * hosts: what serves a server over HTTP or stdio. client: McpClient and the low-level Client,
 * which never see a server or a host. adapters: runtime and framework bindings. cli: the `keel`
 * command. telemetry: `keel-mcp/telemetry` (OpenTelemetry interceptors), which reads server and
 * client types only and which no layer imports (only examples/ and tests). entry: src/index.ts (`keel-mcp`: core plus McpServer and McpClient; no transport or
 * host, so it stays runtime-neutral and free of HTTP code).
 */
const MAY_IMPORT: Readonly<Record<Layer, readonly Layer[]>> = {
  core: ['core'],
  transports: ['core', 'transports'],
  server: ['core', 'transports', 'server'],
  hosts: ['core', 'transports', 'server', 'hosts'],
  client: ['core', 'transports', 'client'],
  adapters: ['core', 'transports', 'server', 'hosts', 'client', 'adapters'],
  cli: ['core', 'transports', 'server', 'hosts', 'client', 'adapters', 'cli'],
  telemetry: ['core', 'server', 'client', 'telemetry'],
  entry: ['core', 'server', 'client'],
};

const FOLDERS = new Set<string>([
  'core',
  'transports',
  'server',
  'hosts',
  'client',
  'adapters',
  'cli',
  'telemetry',
]);

/** The layer of a path relative to the repository root, or undefined outside src/. */
function layerOf(path: string): Layer | 'unknown' | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'src') return undefined;
  if (parts.length === 2) return parts[1] === 'index.ts' ? 'entry' : 'unknown';
  return FOLDERS.has(parts[1]!) ? (parts[1] as Layer) : 'unknown';
}

/** Every module specifier written as a string literal in `source`. */
function specifiersOf(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const literal = (node: ts.Node | undefined): void => {
    if (node !== undefined && ts.isStringLiteralLike(node)) found.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      if (isImport || isRequire) literal(node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      literal(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string }>;
};

/** Where `specifier` leads from `file` (both relative to the root), or undefined for a dependency. */
function targetOf(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return posix.normalize(posix.join(posix.dirname(file), specifier));
  // The package by its own name would dodge the rule: read it as the source of that entry point.
  const self = /^keel-mcp(\/.*)?$/.exec(specifier);
  if (!self) return undefined;
  const entry = pkg.exports[self[1] === undefined ? '.' : `.${self[1]}`];
  return entry?.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
}

interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

/** The imports of `file` (path relative to the root, its text `source`) that the table forbids. */
function violationsOf(file: string, source: string): Violation[] {
  const layer = layerOf(file);
  if (layer === undefined) return [];
  if (layer === 'unknown')
    return [{ file, specifier: '', rule: 'a folder of src/ with no row in MAY_IMPORT' }];
  const violations: Violation[] = [];
  for (const specifier of specifiersOf(file, source)) {
    const target = targetOf(file, specifier);
    if (target === undefined) continue;
    const to = layerOf(target);
    if (to === undefined) violations.push({ file, specifier, rule: `${layer} imports from outside src/` });
    else if (to === 'unknown' || !MAY_IMPORT[layer].includes(to))
      violations.push({ file, specifier, rule: `${layer} may not import ${to}` });
  }
  return violations;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every source file of src/ with its text, read once. */
const SOURCES: ReadonlyMap<string, string> = new Map(
  sourceFiles('src').map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]),
);

describe('layers of src/ (issue 24 point 1)', () => {
  test('every import goes to its own layer or one below it', () => {
    expect(SOURCES.size).toBeGreaterThan(300);
    const violations = [...SOURCES].flatMap(([file, source]) => violationsOf(file, source));
    expect(violations).toEqual([]);
  });

  test('nothing under transports/ or client/ imports server/ or hosts/', () => {
    const upward = [...SOURCES]
      .filter(([file]) => /^src\/(transports|client)\//.test(file))
      .flatMap(([file, source]) =>
        specifiersOf(file, source)
          .map((specifier) => ({ file, target: targetOf(file, specifier) }))
          .filter(({ target }) => target !== undefined && /^src\/(server|hosts)\//.test(target)),
      );
    expect(upward).toEqual([]);
  });

  test('the runtime-neutral folders import no node:* module (README "Project layout")', () => {
    const neutral = /^src\/(core|server|client|transports\/http|transports\/memory|hosts\/http)\//;
    const nodeImports = [...SOURCES]
      .filter(([file]) => neutral.test(file))
      .flatMap(([file, source]) =>
        specifiersOf(file, source)
          .filter((specifier) => specifier.startsWith('node:'))
          .map((specifier) => `${file}: ${specifier}`),
      );
    expect(nodeImports).toEqual([]);
  });

  test('issue 26 telemetry: only src/telemetry/ loads @opentelemetry/*, and it reads server and client types only', () => {
    const otel = [...SOURCES]
      .filter(([file]) => !file.startsWith('src/telemetry/'))
      .flatMap(([file, source]) =>
        specifiersOf(file, source)
          .filter((specifier) => specifier.startsWith('@opentelemetry/'))
          .map((specifier) => `${file}: ${specifier}`),
      );
    expect(otel).toEqual([]);
    const telemetry = [...SOURCES].filter(([file]) => file.startsWith('src/telemetry/'));
    expect(telemetry.length).toBeGreaterThan(0);
    // A value import of server/ or client/ would put their code into the telemetry bundle.
    const valueImports = telemetry.flatMap(([file, source]) =>
      [...source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)]
        .filter((match) => match[1] === undefined && /^\.\.\/(server|client)\//.test(match[2]!))
        .map((match) => `${file}: ${match[2]}`),
    );
    expect(valueImports).toEqual([]);
  });

  test('the scanner sees every form of import, and the table refuses upward ones', () => {
    const source = [
      "import { McpServer } from '../server/mcp-server.js';",
      "import type { Connectable } from '../server/server.js';",
      "export { createHttpHandler } from '../hosts/http/http-handler.js';",
      "export * from '../hosts/stdio/index.js';",
      "const lazy = await import('../server/index.js');",
      "type Options = import('../hosts/http/options.js').HttpHandlerOptions;",
      "import { serveHttp } from 'keel-mcp/node';",
      "import { McpError } from '../core/errors.js';", // allowed
      "import { StdioClientTransport } from '../transports/stdio/stdio-client-transport.js';", // allowed
      "import { createParser } from 'eventsource-parser';", // a dependency
    ].join('\n');
    const found = violationsOf('src/client/example.ts', source);
    expect(found.map((v) => v.specifier)).toEqual([
      '../server/mcp-server.js',
      '../server/server.js',
      '../hosts/http/http-handler.js',
      '../hosts/stdio/index.js',
      '../server/index.js',
      '../hosts/http/options.js',
      'keel-mcp/node',
    ]);
    expect(found[0]!.rule).toBe('client may not import server');
    expect(found[6]!.rule).toBe('client may not import adapters');
    expect(violationsOf('src/transports/http/x.ts', "import '../../hosts/http/index.js';")).toHaveLength(1);
    expect(violationsOf('src/newlayer/x.ts', '')[0]!.rule).toContain('no row in MAY_IMPORT');
    expect(violationsOf('src/adapters/x.ts', "import '../cli/main.js';")[0]!.rule).toBe(
      'adapters may not import cli',
    );
  });
});
