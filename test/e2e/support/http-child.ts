/**
 * The fixture HTTP server (`dist/examples/fixture-http.js`) in a child process on 127.0.0.1 and a
 * free port, so a test can kill the server for real (SIGKILL: no shutdown code runs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { within } from '../../helpers/guard.js';

export const FIXTURE_HTTP = 'dist/examples/fixture-http.js';

export interface HttpChild {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGKILL the server and wait for it to be gone (pipes included). Idempotent. */
  kill(): Promise<void>;
}

export async function spawnFixtureHttp(): Promise<HttpChild> {
  if (!existsSync(FIXTURE_HTTP)) throw new Error(`${FIXTURE_HTTP} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [FIXTURE_HTTP], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const url = new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) resolve(line.trim());
    });
    child.once('close', (code) => reject(new Error(`${FIXTURE_HTTP} exited (${code}): ${stderr}`)));
  });
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await within(gone, 5_000, 'fixture-http child exit');
  };
  try {
    return { url: await within(url, 10_000, 'fixture-http URL'), child, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
