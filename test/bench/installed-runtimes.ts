/**
 * Bun and Deno as the runtime matrix's installer leaves them in `.runtimes/` (after `npm run
 * runtimes` or `npm run bench`). Tests never install them: without them, the tests that need a
 * real runtime are skipped and say so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadRuntimeModule, repoRoot, type InstallModule } from '../runtimes/runtime-modules.js';

const { RUNTIMES } = await loadRuntimeModule<InstallModule>('lib/install.mjs');

/**
 * The installed binary of the pinned runtime `name`, or undefined.
 *
 * @example
 * const bun = installedRuntime('bun');
 */
export function installedRuntime(name: string): string | undefined {
  const runtime = RUNTIMES[name];
  if (!runtime) return undefined;
  const bin = join(repoRoot, '.runtimes', name, 'node_modules', ...runtime.pkg.split('/'), runtime.entry);
  return existsSync(bin) ? bin : undefined;
}

/**
 * An installer for `prepareRuntimeSetups` that only finds what is already installed.
 *
 * @example
 * await prepareRuntimeSetups(servers, { root, ensure: ensureInstalled });
 */
export async function ensureInstalled(_cacheDir: string, name: string): Promise<string> {
  const bin = installedRuntime(name);
  if (!bin) throw new Error(`${name} is not installed in .runtimes/ (npm run runtimes installs it)`);
  return bin;
}
