// How each runtime starts its smoke server, and waiting for the URL it prints. Servers bind to
// 127.0.0.1 on a port the OS picks (workerd: one the runner picked, it cannot report its own).
import { join } from 'node:path';
import { spawnTracked } from '../../conformance/lib/children.mjs';

const URL_LINE = /^KEEL_SMOKE_URL (\S+)$/m;

/**
 * The command line that serves the smoke server on `name`, run from the repository root. `server`
 * (an absolute path under `root`) runs another script the same way, with the same permissions:
 * the benchmark serves its own server on Bun and Deno through it (not for workerd).
 *
 * @example
 * commandFor('bun', '/repo/.runtimes/bun/.../bun', { root: '/repo', cacheDir: '/repo/.runtimes' }); // { command, args }
 */
export function commandFor(name, bin, { root, cacheDir, server }) {
  const script = (file) => server ?? join(root, 'scripts/runtimes/server', file);
  if (name === 'node22' || name === 'node24') return { command: bin, args: [script('node.mjs')] };
  if (name === 'bun') return { command: bin, args: ['run', script('bun.mjs')] };
  if (name === 'deno') {
    // Only loopback sockets and reading the repository (dist, node_modules): nothing else.
    return {
      command: bin,
      args: ['run', '--allow-net=127.0.0.1', `--allow-read=${root}`, script('deno.mjs')],
    };
  }
  if (name === 'workerd') {
    if (server) throw new Error('workerd runs only its smoke Worker');
    // workerd cannot report a port it picked: a Node launcher bundles, configures and starts it.
    return { command: process.execPath, args: [script('workerd.mjs'), bin, join(cacheDir, 'workerd-smoke')] };
  }
  throw new Error(`no launcher for "${name}"`);
}

/**
 * Starts a smoke server and resolves with its handle and URL once it printed `KEEL_SMOKE_URL`;
 * rejects (after stopping nothing: the caller stops the handle) if it exits or is silent for
 * `timeoutMs`.
 *
 * @example
 * const { handle, url } = await startServer({ command, args }, { cwd: root, logFile, timeoutMs: 30_000 });
 */
export function startServer({ command, args }, { cwd, logFile, timeoutMs }) {
  const handle = spawnTracked(command, args, { cwd, logFile, captureStdout: true });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`no URL within ${timeoutMs} ms; log: ${logFile}`)),
      timeoutMs,
    );
    const onData = () => {
      const match = URL_LINE.exec(handle.stdout);
      if (match) done(undefined, match[1]);
    };
    function done(error, url) {
      clearTimeout(timer);
      handle.child.stdout.off('data', onData);
      if (error) reject(Object.assign(error, { handle }));
      else resolve({ handle, url });
    }
    handle.child.stdout.on('data', onData);
    void handle.exited.then((exit) =>
      done(new Error(`exited (${JSON.stringify(exit)}) before serving:\n${handle.tail}`)),
    );
  });
}
