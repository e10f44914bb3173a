/**
 * The README's first server and client (examples/hello-*.ts) and the complete ones of
 * docs/server.md and docs/client.md (examples/readme-*.ts), run end to end as a user would: the
 * compiled client spawns the compiled server over stdio, uses every feature it shows, and both
 * exit cleanly.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { within } from '../helpers/guard.js';
import { ROOT } from './readme-blocks.mjs';

const CLIENT = join(ROOT, 'dist', 'examples', 'readme-client.js');
const SERVER = join(ROOT, 'dist', 'examples', 'readme-server.js');
const HELLO_CLIENT = join(ROOT, 'dist', 'examples', 'hello-client.js');
const HELLO_SERVER = join(ROOT, 'dist', 'examples', 'hello-server.js');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runClient(client: string, cwd: string): { done: Promise<Run>; kill: () => void } {
  const child = spawn(process.execPath, [client], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const done = new Promise<Run>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { done, kill: () => void child.kill('SIGKILL') };
}

test('the README client runs the README server end to end and both exit cleanly', async () => {
  if (!existsSync(CLIENT) || !existsSync(SERVER)) {
    throw new Error('dist/examples/readme-*.js are missing: run `npm run build` first (npm test does)');
  }
  // The client finds the server at dist/examples/readme-server.js, relative to the repository.
  const client = runClient(CLIENT, ROOT);
  const run = await within(client.done, 30_000, 'the README client').finally(client.kill);
  expect(run.stderr).toBe('');
  expect(run.signal).toBeNull();
  expect(run.code).toBe(0);
  const lines = run.stdout.split('\n');
  expect(lines).toContain('tool forecast: Forecast for a city');
  expect(lines).toContain('progress 1/2');
  expect(lines).toContain('Oslo: 21 °C');
  expect(run.stdout).toContain("text: 'Forecasts by Keel'");
  expect(run.stdout).toContain("text: 'Plan a day in Oslo; check the forecast first.'");
}, 40_000);

test('the README hello client runs the hello server from their folder, as the README says', async () => {
  if (!existsSync(HELLO_CLIENT) || !existsSync(HELLO_SERVER)) {
    throw new Error('dist/examples/hello-*.js are missing: run `npm run build` first (npm test does)');
  }
  // The README runs `node hello-client.js` where tsc wrote both files: the client spawns
  // `node hello-server.js` relative to the current directory.
  const client = runClient(HELLO_CLIENT, dirname(HELLO_CLIENT));
  const run = await within(client.done, 30_000, 'the hello client').finally(client.kill);
  expect(run.stderr).toBe('');
  expect(run.signal).toBeNull();
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("{ type: 'text', text: 'Hello, Ada!' }\n");
}, 40_000);
