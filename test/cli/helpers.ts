/**
 * Running the compiled `keel` bin (dist/src/cli/bin.js; `npm run build` first) and the CLI test
 * server (fixtures/cli-server.mjs) from the tests.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { within } from '../helpers/guard.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const BIN = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
export const SERVER = join(ROOT, 'test', 'cli', 'fixtures', 'cli-server.mjs');
/** `-- node <test server>`: the server as a stdio command. */
export const STDIO = ['--', process.execPath, SERVER];

/** Fail with a clear message when the bin was not built. */
export function requireBuiltBin(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
}

/** Fail with a clear message when the test server is not where {@link SERVER} says. */
export function requireTestServer(): void {
  if (!statSync(SERVER, { throwIfNoEntry: false })?.isFile()) throw new Error(`${SERVER}: no such file`);
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `keel <args>` with stdin closed (not a terminal), bounded in time. */
export async function runCli(args: readonly string[], timeoutMs = 20_000): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exit = new Promise<CliRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  return within(exit, timeoutMs, `keel ${args.join(' ')}`).finally(() => child.kill('SIGKILL'));
}

/** The test server over Streamable HTTP on 127.0.0.1: its URL and a stop. */
export async function startHttpServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [SERVER, '--http'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = await within(
    new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        const newline = out.indexOf('\n');
        if (newline >= 0) resolve(out.slice(0, newline).trim());
      });
      child.once('close', () => reject(new Error('the HTTP test server exited before printing its URL')));
    }),
    15_000,
    'HTTP test server start',
  );
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await within(closed, 5_000, 'HTTP test server stop').catch(() => child.kill('SIGKILL'));
      await closed;
    },
  };
}
