import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadRunnerModule, type ChildrenModule } from '../conformance/runner-modules.js';
import { useProcessGuard } from '../helpers/guard.js';
import { loadRuntimeModule, repoRoot, type LaunchModule, type ServerHandle } from './runtime-modules.js';

useProcessGuard();

const { commandFor, startServer } = await loadRuntimeModule<LaunchModule>('lib/launch.mjs');
const children = await loadRunnerModule<ChildrenModule>('lib/children.mjs');
const stopChild: ChildrenModule['stopChild'] = (handle, graceMs) => children.stopChild(handle, graceMs);

let logDir = '';
afterEach(() => {
  if (logDir) rmSync(logDir, { recursive: true, force: true });
  logDir = '';
});

function start(script: string, timeoutMs = 10_000) {
  logDir = mkdtempSync(join(tmpdir(), 'keel-launch-'));
  return startServer(
    { command: process.execPath, args: ['-e', script] },
    { cwd: repoRoot, logFile: join(logDir, 'server.log'), timeoutMs },
  );
}

describe('starting a smoke server', () => {
  test('resolves with the URL the server prints, and the server can be stopped', async () => {
    const { handle, url } = await start(
      "console.log('starting');console.log('KEEL_SMOKE_URL http://127.0.0.1:1/mcp');setInterval(()=>{},1000)",
    );
    expect(url).toBe('http://127.0.0.1:1/mcp');
    expect((await stopChild(handle as never, 2_000)).forced).toBe(false);
  });

  test('a server that exits first is an error with its output', async () => {
    const failure = await start("console.error('boom: no port');process.exit(3)").catch(
      (error: Error & { handle?: ServerHandle }) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/exited \(\{"code":3.*boom: no port/s);
  });

  test('a server that prints no URL is an error after the timeout, and is left for the caller to stop', async () => {
    const failure = (await start('setInterval(()=>{},1000)', 300).catch(
      (error: unknown) => error,
    )) as Error & { handle: ServerHandle };
    expect(failure.message).toMatch(/^no URL within 300 ms/);
    await stopChild(failure.handle as never, 2_000);
  });
});

describe('runtime command lines', () => {
  const paths = { root: '/repo', cacheDir: '/repo/.runtimes' };

  test('Deno may use loopback sockets and read the repository, nothing else', () => {
    const { args } = commandFor('deno', '/bin/deno', paths);
    expect(args.filter((arg) => arg.startsWith('-'))).toEqual([
      '--allow-net=127.0.0.1',
      '--allow-read=/repo',
    ]);
  });

  test('Node, Bun and workerd each start their own server script', () => {
    expect(commandFor('node24', '/bin/node24', paths)).toEqual({
      command: '/bin/node24',
      args: ['/repo/scripts/runtimes/server/node.mjs'],
    });
    expect(commandFor('bun', '/bin/bun', paths).args).toEqual([
      'run',
      '/repo/scripts/runtimes/server/bun.mjs',
    ]);
    expect(commandFor('workerd', '/bin/workerd', paths).args).toEqual([
      '/repo/scripts/runtimes/server/workerd.mjs',
      '/bin/workerd',
      '/repo/.runtimes/workerd-smoke',
    ]);
    expect(() => commandFor('lua', '/bin/lua', paths)).toThrow('no launcher for "lua"');
  });

  test("another server script (the benchmark's) runs the same way, with the same permissions", () => {
    const server = '/repo/bench/servers/keel-http-deno.mjs';
    expect(commandFor('bun', '/bin/bun', { ...paths, server })).toEqual({
      command: '/bin/bun',
      args: ['run', server],
    });
    expect(commandFor('deno', '/bin/deno', { ...paths, server })).toEqual({
      command: '/bin/deno',
      args: ['run', '--allow-net=127.0.0.1', '--allow-read=/repo', server],
    });
    expect(() => commandFor('workerd', '/bin/workerd', { ...paths, server })).toThrow(
      'workerd runs only its smoke Worker',
    );
  });
});
