/**
 * Finds code generation from strings (`eval(...)`, `Function(...)`, `new Function(...)`) in
 * JavaScript, by parsing it: Cloudflare workerd refuses both at run time (`EvalError: Code
 * generation from strings disallowed for this context`), so none may ship in Keel or in what it
 * depends on. Parsing, not grepping, so a comment or a string that mentions `eval(` is no finding
 * and `client.eval(...)` (a method, not the global) is none either.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/** One call that generates code from a string, with where. */
export interface CodegenUse {
  readonly file: string;
  readonly line: number;
  readonly code: string;
}

/** Objects through which the global `eval`/`Function` can be reached by name. */
const GLOBAL_OBJECTS = new Set(['globalThis', 'window', 'self', 'global']);
const CODEGEN = new Set(['eval', 'Function']);

function isCodegenCallee(callee: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(callee)) return isCodegenCallee(callee.expression);
  if (ts.isIdentifier(callee)) return CODEGEN.has(callee.text);
  if (ts.isPropertyAccessExpression(callee))
    return (
      CODEGEN.has(callee.name.text) &&
      ts.isIdentifier(callee.expression) &&
      GLOBAL_OBJECTS.has(callee.expression.text)
    );
  // `(0, eval)(...)`: the indirect-eval idiom.
  if (ts.isBinaryExpression(callee) && callee.operatorToken.kind === ts.SyntaxKind.CommaToken)
    return isCodegenCallee(callee.right);
  return false;
}

/**
 * The code-generating calls in one JavaScript file.
 *
 * @example
 * scanCodegen('a.js', 'const f = new Function("return 1")'); // [{ file: 'a.js', line: 1, code: 'new Function("return 1")' }]
 */
export function scanCodegen(file: string, text: string): CodegenUse[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const uses: CodegenUse[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && isCodegenCallee(node.expression)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      uses.push({ file, line, code: node.getText(source).slice(0, 80) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

const JS_FILE = /\.(m|c)?js$/;

/** Every JavaScript file under `dir`, skipping nested `node_modules` (they are walked as packages). */
export function javascriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : javascriptFiles(path);
    return JS_FILE.test(entry.name) ? [path] : [];
  });
}

type Manifest = { dependencies?: Record<string, string> };

/** Where `name` is installed as seen from `fromDir` (Node's lookup: nearest node_modules up). */
function packageDir(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`dependency ${name} is not installed (from ${fromDir})`);
  }
}

/**
 * The install directories of the runtime `dependencies` of the package at `root`, transitively
 * (what a user's install brings along); devDependencies and optional peers are not shipped.
 *
 * @example
 * runtimePackageDirs('/repo'); // ['/repo/node_modules/jose', ...]
 */
export function runtimePackageDirs(root: string): string[] {
  const seen = new Set<string>();
  const walk = (dir: string): void => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const found = packageDir(name, dir);
      if (seen.has(found)) continue;
      seen.add(found);
      walk(found);
    }
  };
  walk(root);
  return [...seen];
}

/**
 * Scans the given directories' JavaScript; file names in findings are relative to `root`.
 *
 * @example
 * scanDirectories('/repo', ['/repo/dist/src']); // []
 */
export function scanDirectories(root: string, dirs: readonly string[]): CodegenUse[] {
  return dirs.flatMap((dir) =>
    javascriptFiles(dir).flatMap((path) => scanCodegen(relative(root, path), readFileSync(path, 'utf8'))),
  );
}
