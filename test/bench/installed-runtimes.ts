/**
 * Bun and Deno as the runtime matrix's installer leaves them in `.runtimes/` (`npm run runtimes`,
 * `npm run bench`, or `node scripts/runtimes/install.mjs bun deno`, which `.ci/run`
 * runs before `npm test`). Tests never install them. Without them, the tests that need a real
 * runtime are skipped and say so; in CI (`CI` set) they fail instead, since a skip there goes
 * unnoticed (as `test/helpers/redis.ts` does for redis-server).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runningInCi } from '../helpers/ci.js';
import { loadRuntimeModule, repoRoot, type InstallModule } from '../runtimes/runtime-modules.js';

const { RUNTIMES } = await loadRuntimeModule<InstallModule>('lib/install.mjs');

/**
 * The installed binary of the pinned runtime `name` under `root`, or undefined.
 *
 * @example
 * const bun = installedRuntime('bun');
 */
export function installedRuntime(name: string, root = repoRoot): string | undefined {
  const runtime = RUNTIMES[name];
  if (!runtime) return undefined;
  const bin = join(root, '.runtimes', name, 'node_modules', ...runtime.pkg.split('/'), runtime.entry);
  return existsSync(bin) ? bin : undefined;
}

/**
 * Whether a test that needs the runtime `name` can run: its binary is installed. Throws when it is
 * not but the environment requires it (`CI` set), so such a test fails there instead of skipping.
 *
 * @example
 * it.skipIf(!runtimeAvailable('bun'))('serves on Bun', async () => {});
 */
export function runtimeAvailable(name: string, env = process.env, root = repoRoot): boolean {
  if (installedRuntime(name, root) !== undefined) return true;
  if (runningInCi(env)) throw new Error(missingInCi(name));
  return false;
}

/** Why a runtime missing in CI is an error, and what installs it. */
export function missingInCi(name: string): string {
  return (
    `${name} is required here (CI is set) but is not installed in .runtimes/: ` +
    '`node scripts/runtimes/install.mjs bun deno` installs it (.ci/run does, before npm test)'
  );
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
