/**
 * `npm pack` for the package tests: the tarball a user would download, in a fresh temporary
 * directory the caller removes. It packs the `dist` that `npm run build` left (npm test builds
 * first); `--ignore-scripts` so the `prepack` build does not run again inside a test.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../docs/readme-blocks.mjs';

const run = promisify(execFile);

/** `npm`, as the `npm` that runs this test knows it (npm sets npm_execpath for its scripts). */
export function npmCommand(): { command: string; prefix: string[] } {
  const cli = process.env['npm_execpath'];
  if (cli && /npm-cli\.js$/.test(cli)) return { command: process.execPath, prefix: [cli] };
  return { command: process.platform === 'win32' ? 'npm.cmd' : 'npm', prefix: [] };
}

/** Run npm with `args` in `cwd`, bounded by `timeoutMs`; resolves with its stdout. */
export async function npm(args: readonly string[], cwd: string, timeoutMs: number): Promise<string> {
  const { command, prefix } = npmCommand();
  // Under `npm test` npm hands its own prefixes down as npm_config_*; the child must find its
  // project from its cwd instead.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // No update notice, audit or funding chatter: nothing the tests read.
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  for (const key of ['npm_config_prefix', 'npm_config_local_prefix', 'npm_config_global']) delete env[key];
  const { stdout } = await run(command, [...prefix, ...args], {
    cwd,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 16 * 1024 * 1024,
    env,
  });
  return stdout;
}

/** A packed tarball and the temporary directory that holds it. */
export interface Packed {
  /** The temporary directory: the tarball is in it; remove it with {@link Packed.remove}. */
  readonly dir: string;
  /** Absolute path of the `.tgz`. */
  readonly tarball: string;
  /** Paths inside the tarball, without the leading `package/`. */
  readonly files: readonly string[];
  remove(): void;
}

/** Pack the repository into a new temporary directory. */
export async function packKeel(timeoutMs = 30_000): Promise<Packed> {
  if (!existsSync(join(ROOT, 'dist', 'src', 'index.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'keel-pack-'));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    const out = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT, timeoutMs);
    const [info] = JSON.parse(out) as [{ filename: string; files: { path: string }[] }];
    return { dir, tarball: join(dir, info.filename), files: info.files.map((f) => f.path), remove };
  } catch (error) {
    remove();
    throw error;
  }
}
