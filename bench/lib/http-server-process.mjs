// Starts an HTTP bench server as `node <file>` with PORT set — or, for a setup served by another
// runtime, as `{ command, args }` with the port appended as the last argument — waits until it
// accepts connections, and stops it with SIGTERM (SIGKILL after a grace period). The command is
// spawned directly (no shell), so `pid` is the server's own process, whose /proc figures are the
// server CPU per call.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class HttpServerProcess {
  static async start(target, { nodeArgs = [], env = {}, timeoutMs = 15_000 } = {}) {
    const port = await freePort();
    const [command, args] =
      typeof target === 'string'
        ? [process.execPath, [...nodeArgs, target]]
        : [target.command, [...target.args, String(port)]];
    const file = typeof target === 'string' ? target : target.file;
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env, PORT: String(port) },
    });
    const server = new HttpServerProcess(child, port);
    const deadline = Date.now() + timeoutMs;
    while (!(await canConnect(port))) {
      if (server.exitInfo) throw new Error(`${file} exited (${server.exitInfo}): ${server.stderrTail()}`);
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`${file} did not listen within ${timeoutMs} ms: ${server.stderrTail()}`);
      }
      await sleep(20);
    }
    return server;
  }

  constructor(child, port) {
    this.child = child;
    this.pid = child.pid;
    this.port = port;
    this.stderr = '';
    this.exitInfo = undefined;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-2000);
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = String(code ?? signal);
        resolve({ code, signal });
      });
      // A runtime binary that cannot be started (missing, not executable) never exits: say why.
      child.once('error', (error) => {
        this.exitInfo ??= `could not start: ${error.message}`;
        resolve({ code: null, signal: null });
      });
    });
  }

  stderrTail() {
    return this.stderr.trim().split('\n').slice(-5).join(' | ');
  }

  async stop(graceMs = 5_000) {
    if (!this.exitInfo) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const result = await this.exited;
    clearTimeout(timer);
    return result;
  }
}
