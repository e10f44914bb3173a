// The processes of the scale-out benches (bench/scale-out.mjs, bench/adoption.mjs): one
// dist/examples/scale-out-server.js on a free port, and the tests' TypeScript helpers (Redis, the
// round-robin proxy) transpiled into bench/.work/ (they import only node:*).
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
export { helper } from '../../scripts/lib/test-helper.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVER = join(root, 'dist', 'examples', 'scale-out-server.js');

/** One scale-out-server process on a free port; resolves once it prints its URL. */
export function startServer(env) {
  const child = spawn(process.execPath, [SERVER], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
  const gone = new Promise((resolveGone) => child.once('close', resolveGone));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectStart(new Error(`scale-out server did not start within 15 s: ${stderr}`));
    }, 15_000);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      const url = out.slice(0, newline).trim();
      resolveStart({
        port: Number(new URL(url).port),
        pid: child.pid,
        /** SIGTERM (a drain when other processes run), or `signal`; resolves once it exited. */
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await gone;
          clearTimeout(killer);
        },
      });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      rejectStart(new Error(`scale-out server exited (${code}): ${stderr}`));
    });
  });
}
