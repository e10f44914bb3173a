/**
 * stdin EOF on a real stdio server process: the EOF policy (DESIGN.md §2), lifecycle scenarios 2,
 * 16 and 17, and the acceptance point of the Foundation issue.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, vi, describe, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  EXAMPLE_SERVER,
  fixture,
  INITIALIZE,
  INITIALIZED,
  invalidStdout,
  RawServer,
  toolCall,
  useChildCleanup,
  CHILD_TEST_TIMEOUT_MS,
  WAIT_MS,
} from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

describe('stdio server and stdin EOF', () => {
  test('scenario 17: an idle server exits 0 promptly when stdin closes; stdout holds only JSON-RPC', async () => {
    const server = new RawServer(EXAMPLE_SERVER);
    server.send(INITIALIZE);
    await server.response('init');
    server.send(INITIALIZED);
    server.endInput();
    const exit = await within(server.exited, WAIT_MS, 'idle server exit');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(invalidStdout(server)).toEqual([]);
    expect(server.lines).toHaveLength(1);
  });

  test('an idle server that never got a message exits 0 on EOF and writes nothing', async () => {
    const server = new RawServer(EXAMPLE_SERVER);
    server.endInput();
    expect(await within(server.exited, WAIT_MS, 'server exit')).toMatchObject({ code: 0, signal: null });
    expect(server.lines).toEqual([]);
    expect(server.trailing).toBe('');
  });

  test('acceptance: the example server with two handlers in flight exits 0 soon after EOF (bound 5 s, 1 s target measured)', async () => {
    const server = new RawServer(EXAMPLE_SERVER);
    server.send(INITIALIZE);
    await server.response('init');
    server.send(INITIALIZED);
    server.send(toolCall(1, 'slow', { ms: 60_000 }));
    server.send(toolCall(2, 'slow', { ms: 60_000 }));
    // Requests are dispatched in order as they are read: once this ping is answered both slow
    // handlers are running.
    server.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    await server.response('p');
    server.endInput();
    // The correctness bound is 5 s; the 1 s target is measured and printed, not asserted.
    const exit = await within(server.exited, 5_000, 'server exit with two handlers in flight');
    console.error(
      `stdio acceptance: exit ${exit.code} ${exit.ms} ms after stdin EOF (target: under 1000 ms)`,
    );
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(invalidStdout(server)).toEqual([]);
    // Default EOF policy: the client is leaving, so nothing more is written for its calls.
    for (const id of [1, 2]) expect(server.responsesFor(id)).toEqual([]);
    // The handlers' finally blocks ran (abort), rather than the process being killed around them.
    expect(server.stderr).toContain('slow call 1 aborted');
    expect(server.stderr).toContain('slow call 2 aborted');
  });

  test('scenario 2: two handlers parked on roots/list when stdin closes: exit 0, no answer, nothing invalid', async () => {
    const server = new RawServer(fixture('tool-server.js'));
    server.send(INITIALIZE);
    await server.response('init');
    server.send(INITIALIZED);
    server.send(toolCall('a', 'roots'));
    server.send(toolCall('b', 'roots'));
    const rootsRequests = () => server.messages.filter((m) => m.method === 'roots/list');
    await server.waitFor(() => rootsRequests().length === 2, 'two roots/list requests');
    server.endInput();
    const exit = await within(server.exited, WAIT_MS, 'server exit');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(invalidStdout(server)).toEqual([]);
    for (const id of ['a', 'b']) expect(server.responsesFor(id)).toEqual([]);
    // Both nested requests failed with the typed local error inside the handlers.
    expect(server.stderr).toContain('roots a rejected: ConnectionClosedError');
    expect(server.stderr).toContain('roots b rejected: ConnectionClosedError');
    expect(server.stderr).toContain('serveStdio settled');
  });

  test('the reader of stdout goes away (EPIPE) while handlers run: no crash, exit 0 on EOF', async () => {
    const server = new RawServer(fixture('tool-server.js'), { env: { KEEL_DEBUG: '1' } });
    server.send(INITIALIZE);
    await server.response('init');
    server.send(toolCall('late', 'block'));
    await within(
      new Promise<void>((resolve) => {
        const check = (): void => (server.stderr.includes('block late started') ? resolve() : undefined);
        server.child.stderr!.on('data', check);
        check();
      }),
      WAIT_MS,
      'block handler started',
    );
    // Close our end of the server's stdout, then make it answer: its writes now fail with EPIPE.
    server.child.stdout!.destroy();
    server.send(toolCall('r', 'release'));
    for (let i = 0; i < 5; i++) server.send({ jsonrpc: '2.0', id: `after-${i}`, method: 'ping' });
    await within(
      new Promise<void>((resolve) => {
        const check = (): void => (/debug: dropped/.test(server.stderr) ? resolve() : undefined);
        server.child.stderr!.on('data', check);
        check();
      }),
      WAIT_MS,
      'the server reporting dropped writes',
    );
    server.endInput();
    const exit = await within(server.exited, WAIT_MS, 'server exit');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(server.stderr).toContain('serveStdio settled');
  });

  test('a local close (server.close()) with stdin still open lets the process exit 0', async () => {
    const server = new RawServer(fixture('tool-server.js'));
    server.send(INITIALIZE);
    await server.response('init');
    server.send(toolCall('bye', 'shutdown'));
    const exit = await within(server.exited, WAIT_MS, 'server exit after a local close');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(server.responsesFor('bye')).toMatchObject([{ result: { content: [{ text: 'closing' }] } }]);
    expect(invalidStdout(server)).toEqual([]);
    server.child.stdin!.destroy();
  });
});

describe('scenario 16: EOF with the write side open (server fed from a file)', () => {
  const requests =
    [
      INITIALIZE,
      INITIALIZED,
      toolCall(1, 'sleep', { ms: 200 }),
      toolCall(2, 'sleep', { ms: 200 }),
      toolCall(3, 'sleep', { ms: 200 }),
    ]
      .map((m) => JSON.stringify(m))
      .join('\n') + '\n';

  async function runFromFile(env: Record<string, string>): Promise<RawServer> {
    const dir = mkdtempSync(join(tmpdir(), 'keel-stdio-'));
    try {
      const file = join(dir, 'requests.jsonl');
      writeFileSync(file, requests);
      const fd = openSync(file, 'r');
      let server: RawServer;
      try {
        server = new RawServer(fixture('tool-server.js'), { stdin: fd, env });
      } finally {
        closeSync(fd);
      }
      const exit = await within(server.exited, WAIT_MS, 'server exit');
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(invalidStdout(server)).toEqual([]);
      expect(server.responsesFor('init')).toHaveLength(1);
      return server;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('default policy: unfinished calls are aborted and get no answer after EOF; exit 0', async () => {
    const server = await runFromFile({});
    for (const id of [1, 2, 3]) expect(server.responsesFor(id)).toEqual([]);
  });

  test('answerOnClose: each unfinished call gets exactly one -32000 error; exit 0', async () => {
    const server = await runFromFile({ KEEL_ANSWER_ON_CLOSE: '1' });
    for (const id of [1, 2, 3]) {
      expect(server.responsesFor(id)).toEqual([
        { jsonrpc: '2.0', id, error: { code: -32000, message: 'Connection closed' } },
      ]);
    }
  });

  test('drainMs=2000: all three calls get their results; exit 0', async () => {
    const server = await runFromFile({ KEEL_DRAIN_MS: '2000' });
    for (const id of [1, 2, 3]) {
      expect(server.responsesFor(id)).toEqual([
        { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'slept 200' }] } },
      ]);
    }
  });
});
