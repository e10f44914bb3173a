/**
 * Which runtime APIs newer than Node 20.0 the shipped code uses, found by parsing it.
 *
 * `tsc` cannot tell: the `DOM` lib and `@types/node` 20.19 describe APIs that Node 20.0 lacks
 * (`AbortSignal.any` arrived in 20.3). So this table lists the APIs added after 18 with the Node
 * version that first shipped them (unflagged), and {@link scanNodeApis} reports the ones a source
 * file uses. The engines test turns the largest version into the `engines.node` Keel must declare.
 * Add a row when you adopt an API that is not in the table; a row too many costs nothing.
 */
import ts from 'typescript';

/** Node's first release with the API, unflagged (18.x backports do not matter: Keel needs 20). */
export const NODE_API_SINCE: Readonly<Record<string, string>> = {
  // Static members, matched as `Receiver.member`.
  'AbortSignal.any': '20.3.0',
  'ReadableStream.from': '20.6.0',
  'Promise.withResolvers': '22.0.0',
  'Promise.try': '23.0.0',
  'Array.fromAsync': '22.0.0',
  'Object.groupBy': '21.0.0',
  'Map.groupBy': '21.0.0',
  'Iterator.from': '22.0.0',
  'URL.parse': '22.1.0',
  'RegExp.escape': '24.0.0',
  'process.getBuiltinModule': '20.16.0',
  'process.loadEnvFile': '20.12.0',
  'import.meta.dirname': '20.11.0',
  'import.meta.filename': '20.11.0',
  // Prototype methods, matched as `.member` on any receiver.
  '.toSorted': '20.0.0',
  '.toReversed': '20.0.0',
  '.toSpliced': '20.0.0',
  '.isWellFormed': '20.0.0',
  '.toWellFormed': '20.0.0',
  '.getSetCookie': '20.0.0',
  '.transfer': '21.0.0',
  '.transferToFixedLength': '21.0.0',
  '.union': '22.0.0',
  '.intersection': '22.0.0',
  '.difference': '22.0.0',
  '.symmetricDifference': '22.0.0',
  '.isSubsetOf': '22.0.0',
  '.isSupersetOf': '22.0.0',
  '.isDisjointFrom': '22.0.0',
  // Globals, matched as identifiers that nothing in the file declares.
  navigator: '21.0.0',
  WebSocket: '22.4.0',
  // Named imports from Node's modules, matched as `node:module#name`.
  'node:events#addAbortListener': '20.5.0',
  'node:util#styleText': '20.12.0',
  'node:util#getCallSites': '22.9.0',
  'node:crypto#hash': '20.12.0',
  'node:fs#glob': '22.0.0',
  'node:fs/promises#glob': '22.0.0',
  'node:module#register': '20.6.0',
  'node:module#enableCompileCache': '22.1.0',
  // Syntax.
  'syntax:using': '24.0.0',
  'syntax:regexp-v-flag': '20.0.0',
};

/** One use of a table API in a file. */
export interface ApiUse {
  readonly api: string;
  readonly since: string;
  readonly file: string;
  readonly line: number;
}

/** `a.b.c` versions compared numerically: negative, 0 or positive like a sort comparator. */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/**
 * The table APIs used by one source file (TypeScript or JavaScript), with where.
 *
 * @example
 * scanNodeApis('a.ts', 'AbortSignal.any([s])'); // [{ api: 'AbortSignal.any', since: '20.3.0', ... }]
 */
export function scanNodeApis(file: string, text: string): ApiUse[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const declared = new Set<string>();
  const uses: ApiUse[] = [];
  const found = (api: string, node: ts.Node): void => {
    const since = NODE_API_SINCE[api];
    if (since === undefined) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    uses.push({ api, since, file, line });
  };
  const globals: ts.Identifier[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) {
      const member = node.name.text;
      const receiver = node.expression;
      if (ts.isIdentifier(receiver)) found(`${receiver.text}.${member}`, node);
      else if (ts.isMetaProperty(receiver)) found(`import.meta.${member}`, node);
      found(`.${member}`, node);
    } else if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const module = node.moduleSpecifier.text.replace(/^(node:)?/, 'node:');
      const named = node.importClause?.namedBindings;
      if (named && ts.isNamedImports(named)) {
        for (const element of named.elements)
          found(`${module}#${(element.propertyName ?? element.name).text}`, element);
      }
    } else if (ts.isVariableDeclarationList(node) && node.flags & ts.NodeFlags.Using) {
      found('syntax:using', node);
    } else if (ts.isRegularExpressionLiteral(node) && /\/[a-z]*v[a-z]*$/.test(node.text)) {
      found('syntax:regexp-v-flag', node);
    } else if (ts.isIdentifier(node) && isValueReference(node)) {
      globals.push(node);
    }
    if (
      (ts.isVariableDeclaration(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isParameter(node) ||
        ts.isImportSpecifier(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    ) {
      declared.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const identifier of globals) if (!declared.has(identifier.text)) found(identifier.text, identifier);
  return uses;
}

/** An identifier read as a value on its own (not a property name, a key or a type). */
function isValueReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name === node)
    return false;
  if (ts.isTypeReferenceNode(parent) || ts.isQualifiedName(parent)) return false;
  return ts.isExpression(node);
}
