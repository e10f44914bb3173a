/**
 * An empty project that installs the packed tarball, as a user's would, and the README's server
 * and client written into it as that user would write them: `import ... from 'keel-mcp/...'`.
 *
 * The sources are examples/readme-server.ts and examples/readme-client.ts, with their relative
 * imports turned into package subpaths (the same rewrite that shows them in the README). Each is
 * kept as .ts, for `tsc` against the installed declarations, and transpiled to .mjs for Node. The
 * HTTP pair is the same code with only the transport swapped; a README change that removes the
 * line being swapped fails here with a message that says which.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { publicFileText, ROOT } from '../docs/readme-blocks.mjs';
import { npm } from './pack.js';

/** The scripts the project holds, by what they do. */
export const SCRIPTS = ['server-stdio', 'client-stdio', 'server-http', 'client-http', 'imports'] as const;
export type Script = (typeof SCRIPTS)[number];

/** Replace exactly one match of `pattern` in `text`, else throw naming what was expected. */
function replaceOnce(text: string, file: string, pattern: RegExp, replacement: string): string {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? [];
  if (matches.length !== 1) {
    throw new Error(
      `${file}: expected one line matching ${pattern}, found ${matches.length}; update test/package/user-project.ts`,
    );
  }
  return text.replace(pattern, replacement);
}

const SERVER = 'examples/readme-server.ts';
const CLIENT = 'examples/readme-client.ts';

/** The project's TypeScript sources, by script name. */
export function userSources(): Record<Script, string> {
  const server = publicFileText(SERVER);
  const client = publicFileText(CLIENT);
  const exportMap = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, unknown>;
  };
  const subpaths = Object.keys(exportMap.exports).map((key) =>
    join(exportMap.name, key).split('\\').join('/'),
  );

  const serverHttp = replaceOnce(
    replaceOnce(
      server,
      SERVER,
      /^import \{ serveStdio \} from 'keel-mcp\/stdio';$/m,
      "import { serveHttp } from 'keel-mcp/node';",
    ),
    SERVER,
    /^await serveStdio\(server\);.*$/m,
    [
      "const serving = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });",
      'console.log(serving.url);',
      "process.once('SIGTERM', () => void serving.close({ deadlineMs: 5_000 }));",
    ].join('\n'),
  );
  const clientStdio = replaceOnce(
    client,
    CLIENT,
    /'dist\/examples\/readme-server\.js'/,
    "'server-stdio.mjs'",
  );
  const clientHttp = replaceOnce(
    replaceOnce(
      client,
      CLIENT,
      /^import \{ StdioClientTransport \} from 'keel-mcp\/stdio';$/m,
      "import { StreamableHttpClientTransport } from 'keel-mcp/http';",
    ),
    CLIENT,
    /^const transport = new StdioClientTransport\(.*\);$/m,
    'const transport = new StreamableHttpClientTransport(process.argv[2]!);',
  );
  const imports = [
    `for (const subpath of ${JSON.stringify(subpaths)}) {`,
    '  const loaded: Record<string, unknown> = await import(subpath);',
    '  console.log(`${subpath} ${Object.keys(loaded).length}`);',
    '}',
  ].join('\n');
  return {
    'server-stdio': server,
    'client-stdio': clientStdio,
    'server-http': serverHttp,
    'client-http': clientHttp,
    imports,
  };
}

/**
 * Create the project in `dir` (which must not exist yet), install `tarball` and zod (the schema
 * library the README's server uses) into it, and write each script as `<name>.ts` and
 * `<name>.mjs`.
 */
export async function createUserProject(dir: string, tarball: string, timeoutMs: number): Promise<void> {
  mkdirSync(dir);
  const ownPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'keel-user', private: true, type: 'module' }),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        // Typecheck Keel's declarations too: an import in them that does not resolve for a user
        // would otherwise quietly become `any`.
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      include: ['*.ts'],
    }),
  );
  for (const [name, source] of Object.entries(userSources())) {
    writeFileSync(join(dir, `${name}.ts`), `${source}\n`);
    const js = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    writeFileSync(join(dir, `${name}.mjs`), js);
  }
  const zod = ownPkg.devDependencies['zod'];
  await npm(['install', '--no-package-lock', '--prefer-offline', tarball, `zod@${zod}`], dir, timeoutMs);
}
