/**
 * An empty project set up as the README tells a user to (`npm pkg set type=module`, the tarball
 * and zod, `typescript` and `@types/node`, then `npx tsc --init --module nodenext --target es2022
 * --types node`), with the README's programs written into it as that user would write them:
 * `import ... from 'keel-mcp/...'`, compiled by the project's own `tsc`.
 *
 * The programs are the README's hello server and client (examples/hello-*.ts, and the HTTP client
 * the README describes in one sentence) and the complete server and client of docs/server.md and
 * docs/client.md (examples/readme-*.ts), as the guides show them. The HTTP pair of the latter is
 * the same code with only the transport swapped; a change that removes the line being swapped
 * fails here with a message that says which.
 *
 * `tsc --init` (TypeScript 6) turns on `strict`, `exactOptionalPropertyTypes` and
 * `noUncheckedIndexedAccess`: Keel's declarations must hold under the strictest settings users
 * pick. The compile also passes those three on the command line (whatever a later `--init` writes)
 * and `--skipLibCheck false`, so Keel's installed `.d.ts` files are checked too.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publicFileText, ROOT } from '../docs/readme-blocks.mjs';
import { npm } from './pack.js';

/** The scripts the project holds, by what they do. */
export const SCRIPTS = [
  'hello-server',
  'hello-client',
  'hello-http-server',
  'hello-http-client',
  'server-stdio',
  'client-stdio',
  'server-http',
  'client-http',
  'imports',
  'types',
] as const;
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
const HELLO_CLIENT = 'examples/hello-client.ts';

/** The README's `tsc --init` line, as a user runs it in the project. */
export const TSC_INIT = ['--init', '--module', 'nodenext', '--target', 'es2022', '--types', 'node'] as const;

/**
 * What the project is compiled with beyond its tsconfig.json: the strict flags `tsc --init` turns
 * on today (stated again, so a later `--init` that drops one does not weaken this test), and
 * declarations checked.
 */
export const TSC_STRICT = [
  '--strict',
  '--exactOptionalPropertyTypes',
  '--noUncheckedIndexedAccess',
  '--skipLibCheck',
  'false',
] as const;

/** The project's TypeScript sources, by script name. */
export function userSources(): Record<Script, string> {
  const server = publicFileText(SERVER);
  const client = publicFileText(CLIENT);
  const helloClient = publicFileText(HELLO_CLIENT);
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
  const clientStdio = replaceOnce(client, CLIENT, /'dist\/examples\/readme-server\.js'/, "'server-stdio.js'");
  // The README: "A client uses `new StreamableHttpClientTransport('http://127.0.0.1:3000/mcp')`
  // (`keel-mcp/http`) instead of the stdio transport".
  const helloHttpClient = replaceOnce(
    replaceOnce(
      helloClient,
      HELLO_CLIENT,
      /^import \{ StdioClientTransport \} from 'keel-mcp\/stdio';$/m,
      "import { StreamableHttpClientTransport } from 'keel-mcp/http';",
    ),
    HELLO_CLIENT,
    /^const transport = new StdioClientTransport\(.*\);$/m,
    "const transport = new StreamableHttpClientTransport('http://127.0.0.1:3000/mcp');",
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
  // keel-mcp/telemetry needs its optional peer @opentelemetry/api, which this project lacks: its
  // import must fail naming that package (a clear error), and nothing else may.
  const imports = [
    `for (const subpath of ${JSON.stringify(subpaths)}) {`,
    '  try {',
    '    const loaded: Record<string, unknown> = await import(subpath);',
    '    console.log(`${subpath} ${Object.keys(loaded).length}`);',
    '  } catch (error) {',
    "    const peer = (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && String(error).includes(\"'@opentelemetry/api'\");",
    "    if (!subpath.endsWith('/telemetry') || !peer) throw error;",
    '    console.log(`${subpath} needs-peer`);',
    '  }',
    '}',
  ].join('\n');
  // Every entry point's declarations in the program, so `--skipLibCheck false` checks them all under
  // the user's flags. But keel-mcp/fastify and keel-mcp/telemetry: their declarations name the
  // types of fastify and @opentelemetry/api, which a user of them has installed; this project has not.
  const types = subpaths
    .filter((subpath) => subpath !== `${exportMap.name}/fastify` && subpath !== `${exportMap.name}/telemetry`)
    .map((subpath, i) => `export type * as entry${i} from '${subpath}';`)
    .join('\n');
  return {
    'hello-server': publicFileText('examples/hello-server.ts'),
    'hello-client': helloClient,
    'hello-http-server': publicFileText('examples/hello-http-server.ts'),
    'hello-http-client': helloHttpClient,
    'server-stdio': server,
    'client-stdio': clientStdio,
    'server-http': serverHttp,
    'client-http': clientHttp,
    imports,
    types,
  };
}

/** What the project's `tsc` printed, and its exit code. */
export interface Compiled {
  readonly code: number;
  readonly output: string;
  /** The project's tsconfig.json as `tsc --init` wrote it. */
  readonly tsconfig: string;
}

/**
 * Create the project in `dir` (which must not exist yet) as the README says, write each script as
 * `<name>.ts`, and compile them with the project's `tsc` into `<name>.js` beside them. A type error
 * does not stop the emit (as with a user's `npx tsc`): the caller checks {@link Compiled}.
 */
export async function createUserProject(dir: string, tarball: string, timeoutMs: number): Promise<Compiled> {
  mkdirSync(dir);
  const ownPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'keel-user', private: true }));
  await npm(['pkg', 'set', 'type=module'], dir, timeoutMs);
  // The versions Keel itself is built and tested with, so the npm cache `npm ci` filled serves
  // them (--prefer-offline); the README's line installs the latest of each.
  const dev = (name: string): string => `${name}@${ownPkg.devDependencies[name]}`;
  await npm(
    [
      'install',
      '--no-package-lock',
      '--prefer-offline',
      tarball,
      dev('zod'),
      dev('typescript'),
      dev('@types/node'),
    ],
    dir,
    timeoutMs,
  );
  await npm(['exec', '--no', '--', 'tsc', ...TSC_INIT], dir, timeoutMs);
  for (const [name, source] of Object.entries(userSources()))
    writeFileSync(join(dir, `${name}.ts`), `${source}\n`);
  const tsconfig = readFileSync(join(dir, 'tsconfig.json'), 'utf8');
  try {
    const output = await npm(['exec', '--no', '--', 'tsc', ...TSC_STRICT], dir, timeoutMs);
    return { code: 0, output, tsconfig };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error; // not run, or killed: no compiler verdict
    return { code: failed.code, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, tsconfig };
  }
}
