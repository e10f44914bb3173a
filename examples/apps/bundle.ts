/**
 * Builds the browser side of the weather example with rolldown: the host page's script (Keel's
 * client + ext-apps' AppBridge) and the app's HTML with its script (ext-apps' App) inlined, since a
 * sandboxed app has no server of its own to load scripts from.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

/** The repository root (this file runs from examples/apps/ under vitest, dist/examples/apps/ built). */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'examples/apps/host.html'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('examples/apps: cannot find the repository root');
}

const ROOT = repositoryRoot();
const HERE = join(ROOT, 'examples/apps');

// Keel's entries from the sources, as tsconfig.json "paths" map them.
const ALIAS = {
  'keel-mcp/client': join(ROOT, 'src/client/index.ts'),
  'keel-mcp/core': join(ROOT, 'src/core/index.ts'),
  'keel-mcp/http': join(ROOT, 'src/hosts/http/index.ts'),
};

async function bundle(entry: string): Promise<string> {
  const result = await build({
    input: join(HERE, entry),
    platform: 'browser',
    resolve: { alias: ALIAS },
    write: false,
    logLevel: 'warn',
    output: { format: 'esm', codeSplitting: false },
  });
  return result.output[0].code;
}

/**
 * The two pages: `hostHtml` + `hostJs` (served at / and /host.js) and `appHtml` (the ui://
 * resource's document, script inlined).
 *
 * @example
 * const { hostHtml, hostJs, appHtml } = await bundleWeatherExample();
 */
export async function bundleWeatherExample(): Promise<{ hostHtml: string; hostJs: string; appHtml: string }> {
  const [hostJs, appJs] = await Promise.all([bundle('host.ts'), bundle('weather-app.ts')]);
  // Inside a <script> element the text "</script" would end it early.
  const inline = appJs.replaceAll('</script', '<\\/script');
  const appHtml = readFileSync(join(HERE, 'weather-view.html'), 'utf8').replace(
    '/*APP_SCRIPT*/',
    () => inline,
  );
  return { hostHtml: readFileSync(join(HERE, 'host.html'), 'utf8'), hostJs, appHtml };
}
