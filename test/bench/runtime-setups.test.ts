/**
 * The Bun and Deno bench setups: their runtime comes from the runtime matrix's installer and starts
 * with the matrix's command line plus the phase's mode and the port; a runtime that cannot be
 * installed leaves its setup out with the reason; the measured pid is the runtime's own process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpServerProcess } from '../../bench/lib/http-server-process.mjs';
import { prepareRuntimeSetups } from '../../bench/lib/runtime-setups.mjs';
import { benchSetups } from '../../bench/lib/setups.mjs';
import { benchHandlerOptions } from '../../bench/servers/runtime-args.mjs';
import { useProcessGuard, within } from '../helpers/guard.js';
import { INITIALIZE, postJson } from './http-post.js';
import { ensureInstalled, runtimeAvailable } from './installed-runtimes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const serverFile = (runtime: string): string => join(root, 'bench', 'servers', `keel-http-${runtime}.mjs`);

describe('runtime setups', () => {
  it('launch the runtime the installer returns, with the matrix command line, the mode and the port', async () => {
    const { servers } = benchSetups(root);
    const installs: string[][] = [];
    const prepared = await prepareRuntimeSetups(servers, {
      root,
      ensure: async (cacheDir, name) => {
        installs.push([cacheDir, name]);
        return `/installed/${name}`;
      },
    });
    expect(prepared.skipped).toEqual([]);
    expect(installs).toEqual([
      [join(root, '.runtimes'), 'bun'],
      [join(root, '.runtimes'), 'deno'],
    ]);
    const bun = prepared.servers.find((s) => s.key === 'keelBun')!;
    const file = serverFile('bun');
    expect([bun.http, bun.stateless, bun.modern]).toEqual([
      { command: '/installed/bun', args: ['run', file, 'sessions'], file },
      { command: '/installed/bun', args: ['run', file, 'stateless'], file },
      { command: '/installed/bun', args: ['run', file, 'sessions'], file },
    ]);
    const deno = prepared.servers.find((s) => s.key === 'keelDeno')!;
    expect(deno.stateless).toEqual({
      command: '/installed/deno',
      args: ['run', '--allow-net=127.0.0.1', `--allow-read=${root}`, serverFile('deno'), 'stateless'],
      file: serverFile('deno'),
    });
    // Every other setup runs on this Node, untouched, in the same order.
    expect(prepared.servers.map((s) => s.key)).toEqual(servers.map((s) => s.key));
    for (const server of servers.filter((s) => !s.runtime))
      expect(prepared.servers.find((s) => s.key === server.key)).toBe(server);
  });

  it('leave out a setup whose runtime cannot be installed, with the reason on one line', async () => {
    const { servers } = benchSetups(root);
    const logged: string[] = [];
    const prepared = await prepareRuntimeSetups(servers, {
      root,
      log: (line) => logged.push(line),
      ensure: async (_cacheDir, name) => {
        if (name === 'bun')
          throw new Error(
            'could not install @oven/bun-linux-x64@1.4.5 (npm exited with 1); npm said:\nnpm error 404',
          );
        return `/installed/${name}`;
      },
    });
    const reason =
      "could not install @oven/bun-linux-x64@1.4.5 (npm exited with 1) (npm's output: .runtimes/logs/install-bun.log)";
    expect(prepared.skipped).toEqual([
      { key: 'keelBun', label: servers.find((s) => s.key === 'keelBun')!.label, reason },
    ]);
    expect(prepared.servers.map((s) => s.key)).toEqual(
      servers.filter((s) => s.key !== 'keelBun').map((s) => s.key),
    );
    expect(logged).toEqual([`keelBun left out: ${reason}`]);
  });

  it('serve the mode asked for on the port asked for, and refuse any other command line', () => {
    expect(benchHandlerOptions(['sessions', '4100'])).toEqual({
      options: { sessions: { max: 100_000 } },
      port: 4100,
    });
    expect(benchHandlerOptions(['stateless', '4100'])).toEqual({ options: { sessions: false }, port: 4100 });
    expect(() => benchHandlerOptions(['stateful', '4100'])).toThrow(
      'unknown mode "stateful": sessions or stateless',
    );
    expect(() => benchHandlerOptions(['sessions'])).toThrow('usage: <sessions|stateless> <port>');
    expect(() => benchHandlerOptions(['sessions', '0'])).toThrow('usage: <sessions|stateless> <port>');
    expect(() => benchHandlerOptions(['sessions', '80', 'x'])).toThrow('usage: <sessions|stateless> <port>');
  });
});

describe('a server started from a launch command', () => {
  useProcessGuard();
  let server: HttpServerProcess | undefined;
  afterEach(async () => {
    await server?.stop(2_000);
    server = undefined;
  });

  it('gets the port as its last argument, and its pid is the launched process itself', async () => {
    // Answers every request with the argument before the port: proof of the argument order.
    const script =
      "const [mode, port] = process.argv.slice(1); require('node:http').createServer((q, r) => r.end(mode)).listen(Number(port), '127.0.0.1')";
    server = await HttpServerProcess.start(
      { command: process.execPath, args: ['-e', script, 'stateless'], file: 'inline.js' },
      { timeoutMs: 10_000 },
    );
    const answer = await within(postJson(server.port, '{}'));
    expect(answer.text).toBe('stateless');
    // What /proc reports for this pid is the launched binary, not a wrapper shell.
    const argv = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual([process.execPath, '-e', script, 'stateless', String(server.port), '']);
  });

  it('a runtime binary that cannot start is an error naming the server file and why', async () => {
    const failure = await HttpServerProcess.start(
      { command: join(root, '.runtimes', 'no-such-runtime'), args: [], file: 'keel-http-nowhere.mjs' },
      { timeoutMs: 10_000 },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /^keel-http-nowhere\.mjs exited \(could not start: spawn .* ENOENT\)/,
    );
  });
});

// The real runtimes, when the matrix's installer has put them into .runtimes/: the bench server
// answers a session's echo, and the stateless mode keeps no session (skipped without them, except
// in CI, where they fail: .ci/run installs them before npm test).
describe.each(['bun', 'deno'])('the %s bench server', (runtime) => {
  useProcessGuard();
  let server: HttpServerProcess | undefined;
  afterEach(async () => {
    await server?.stop(5_000);
    server = undefined;
  });

  it('serves the bench tools with sessions, and without in stateless mode', async (context) => {
    // Skipped off CI without the runtime; in CI runtimeAvailable throws, and this test fails.
    if (!runtimeAvailable(runtime)) return context.skip(`${runtime} is not installed in .runtimes/`);
    const { servers } = benchSetups(root);
    const prepared = await prepareRuntimeSetups(servers, { root, ensure: ensureInstalled });
    const setup = prepared.servers.find((s) => s.runtime === runtime)!;
    server = await HttpServerProcess.start(setup.http!, { timeoutMs: 20_000 });
    const init = await within(postJson(server.port, INITIALIZE), 10_000);
    expect(init.status).toBe(200);
    const sessionId = init.headers['mcp-session-id'] as string;
    expect(typeof sessionId).toBe('string');
    const call = await within(
      postJson(
        server.port,
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
        { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      ),
      10_000,
    );
    expect(JSON.parse(call.text)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    expect(readFileSync(`/proc/${server.pid}/comm`, 'utf8').trim()).toBe(runtime);
    await server.stop(5_000);

    server = await HttpServerProcess.start(setup.stateless!, { timeoutMs: 20_000 });
    const stateless = await within(postJson(server.port, INITIALIZE), 10_000);
    expect(stateless.status).toBe(200);
    expect(stateless.headers['mcp-session-id']).toBeUndefined();
  });
});
