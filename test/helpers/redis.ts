/**
 * A throwaway `redis-server` for tests: 127.0.0.1, a free port, no persistence, its own temp dir.
 *
 * Usage:
 *   const redis = await startRedis();   // answers PING when this resolves
 *   ... redis.url ...
 *   await redis.restart();               // same port, empty data (no persistence)
 *   await redis.stop();                  // process gone, temp dir removed
 *
 * `redisAvailable()` says whether the binary is installed (Debian: `apt-get install redis-server`),
 * so a suite can skip with a visible reason on a developer machine without it. Where Redis is
 * required (`CI` or `REDIS_URL` set, as `.ci/run` does) a missing binary throws instead: the suite
 * fails rather than silently skipping.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runningInCi } from './ci.js';

const BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';

export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Kill the server (SIGTERM, then SIGKILL after 2 s); resolves once the process has exited. */
  stop(): Promise<void>;
  /** Stop, then start again on the same port (data is gone: nothing is persisted). */
  restart(): Promise<void>;
  /** End the process only (Redis is "down"); `start()` brings it back on the same port. */
  kill(): Promise<void>;
  /** Start again after `kill()` (no-op while it runs); resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing is answered (a hung Redis). */
  freeze(): void;
  /** SIGCONT after `freeze()`. */
  thaw(): void;
}

/** Whether this environment promises Redis (CI, or a `REDIS_URL` handed to the tests). */
function redisRequired(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.REDIS_URL) || runningInCi(env);
}

/**
 * Whether `redis-server` can be run here (`env.REDIS_SERVER_BIN`, default `redis-server`).
 * Throws when it cannot but the environment requires Redis (`CI` or `REDIS_URL` set): a suite
 * that uses it in `describe.skipIf(!redisAvailable())` then fails with this message.
 */
export function redisAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  const binary = env.REDIS_SERVER_BIN ?? 'redis-server';
  const probe = spawnSync(binary, ['--version'], { stdio: 'ignore', timeout: 5_000 });
  if (probe.status === 0) return true;
  if (redisRequired(env)) {
    throw new Error(
      `${binary} is required here (CI or REDIS_URL is set) but \`${binary} --version\` failed: ` +
        'install Debian redis-server (.ci/run does) or point REDIS_SERVER_BIN at the binary',
    );
  }
  return false;
}

/** A port the OS just handed out (closed again at once; the server binds it right after). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * One command over a raw socket, returning the reply's raw RESP text (no client library: the helper
 * must not depend on the code under test). `undefined` when no full reply came within `timeoutMs`.
 */
export function rawCommand(port: number, args: string[], timeoutMs = 1_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = connect({ host: '127.0.0.1', port });
    const done = (text: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const body = args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('');
    socket.once('connect', () => socket.write(`*${args.length}\r\n${body}`));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      // Enough for the simple and short array replies the tests read.
      if (reply.endsWith('\r\n')) done(reply);
    });
    socket.once('error', () => done(undefined));
  });
}

async function ping(port: number, timeoutMs: number): Promise<boolean> {
  return (await rawCommand(port, ['PING'], timeoutMs))?.startsWith('+PONG') ?? false;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGCONT'); // a frozen server would not act on SIGTERM
  child.kill('SIGTERM');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, 2_000);
  });
  await Promise.race([exited(child), killed]);
  clearTimeout(timer);
  await exited(child);
}

/** Spawn on `port` and wait (at most 10 s) until it answers PING; reject with its output if not. */
async function launch(port: number, dir: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--dir', dir, '--daemonize', 'no', '--loglevel', 'warning');
  const child = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    if (await ping(port, 500)) return child;
    const failed = await Promise.race([spawnError, new Promise<undefined>((r) => setTimeout(r, 25))]);
    if (failed) throw new Error(`redis-server could not start: ${failed.message}`);
  }
  await stopChild(child);
  throw new Error(`redis-server did not answer PING on 127.0.0.1:${port}: ${output.trim()}`);
}

/** Start a fresh server; a lost race for the free port is retried (3 tries). */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'keel-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;
  let lastError: unknown;
  for (let attempt = 0; attempt < 3 && !child; attempt++) {
    port = await freePort();
    try {
      child = await launch(port, dir);
    } catch (error) {
      lastError = error;
    }
  }
  if (!child) {
    rmSync(dir, { recursive: true, force: true });
    throw lastError;
  }
  let current: ChildProcess = child;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await stopChild(current);
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stopChild(current);
      current = await launch(port, dir);
    },
    freeze() {
      current.kill('SIGSTOP');
    },
    thaw() {
      current.kill('SIGCONT');
    },
    async kill() {
      await stopChild(current);
    },
    async start() {
      if (current.exitCode === null && current.signalCode === null) return;
      current = await launch(port, dir);
    },
  };
}
