// Starts an HTTP bench server as `node <file>` with PORT set, waits until it accepts
// connections, and stops it with SIGTERM (SIGKILL after a grace period).
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
  static async start(file, { nodeArgs = [], env = {}, timeoutMs = 15_000 } = {}) {
    const port = await freePort();
    const child = spawn(process.execPath, [...nodeArgs, file], {
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
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exitInfo = String(code ?? signal);
        resolve({ code, signal });
      }),
    );
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
