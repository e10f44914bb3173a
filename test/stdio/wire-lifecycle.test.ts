/**
 * Lifecycle guarantees on the stdio wire, against a real child process over pipes: 3 (a cancelled
 * request gets no response), 8 (nested requests follow their parent), 10 (bad cancellations are
 * ignored), 11 (a handler's context dies with its request), 15 (ordered shutdown), and scenarios
 * 5, 6, 7, 8, 9, 11, 15 of the lifecycle scenarios (their memory-only versions are in
 * test/lifecycle/).
 *
 * Soundness of "nothing was written for id X": stdout is one ordered stream, so once the answer to
 * a ping sent *after* the handler of X finished has been read, anything written for X would
 * already have been read too.
 */
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { Client } from 'keel-mcp/client';
import { RequestAbortedError, RequestTimeoutError } from 'keel-mcp/core';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  fixture,
  INITIALIZED,
  RawServer,
  toolCall,
  useChildCleanup,
  CHILD_TEST_TIMEOUT_MS,
  WAIT_MS,
  type Json,
  endAndExpectCleanExit,
} from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { roots: {}, elicitation: {} },
    clientInfo: { name: 'raw', version: '1' },
  },
};

const cancel = (requestId: unknown, extra: Json = {}): Json => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, ...extra },
});

/** The lifecycle fixture, initialized. */
async function start(): Promise<RawServer> {
  const server = new RawServer(fixture('lifecycle-server.js'));
  server.send(INITIALIZE);
  await server.response('init');
  server.send(INITIALIZED);
  return server;
}

/** Wait (bounded) until the child's stderr contains `text`. */
function stderrShows(server: RawServer, text: string): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (!server.stderr.includes(text)) return;
        server.child.stderr!.off('data', check);
        resolve();
      };
      server.child.stderr!.on('data', check);
      check();
    }),
    WAIT_MS,
    `stderr showing "${text}" (stderr: ${server.stderr.trim() || '-'})`,
  );
}

/** Send a ping and wait for its answer: everything written before it has been read. */
async function barrier(server: RawServer, id: string): Promise<void> {
  server.send({ jsonrpc: '2.0', id, method: 'ping' });
  expect(await server.response(id)).toEqual({ jsonrpc: '2.0', id, result: {} });
}

const finish = endAndExpectCleanExit;

describe('guarantee 3 on stdio: a cancelled request gets no response', () => {
  test('scenario 5: a handler that ignores the cancel and returns: the result is dropped', async () => {
    const server = await start();
    server.send(toolCall('s', 'stubborn'));
    await stderrShows(server, 'stubborn s started');
    server.send(cancel('s', { reason: 'user pressed stop' }));
    await stderrShows(server, 'stubborn s aborted by CancelledByPeerError');
    await stderrShows(server, 'stubborn s returned');
    await barrier(server, 'p');
    expect(server.responsesFor('s')).toEqual([]);
    await finish(server);
  });

  for (const kind of ['plain', 'mcp'] as const) {
    test(`scenario 6: a handler that throws ${kind === 'mcp' ? 'an McpError' : 'a plain Error'} after the cancel: no error response, still serving`, async () => {
      const server = await start();
      server.send(toolCall('f', 'fails-after-abort', { kind }));
      await stderrShows(server, 'fails f started');
      server.send(cancel('f'));
      await stderrShows(server, 'fails f threw');
      await barrier(server, 'p');
      expect(server.responsesFor('f')).toEqual([]);
      expect(await (server.send(toolCall('q', 'quick')), server.response('q'))).toMatchObject({
        result: { content: [{ text: 'quick' }] },
      });
      await finish(server);
    });
  }
});

describe('scenario 7 on stdio: a cancel racing completion', () => {
  test('cancels (twice) after the result was read: exactly one response, the result; still serving', async () => {
    const server = await start();
    server.send(toolCall(7, 'quick'));
    expect(await server.response(7)).toMatchObject({ result: { content: [{ text: 'quick' }] } });
    server.send(cancel(7));
    server.send(cancel(7));
    await barrier(server, 'p');
    expect(server.responsesFor(7)).toHaveLength(1);
    expect(server.stderr).not.toContain('error:');
    await finish(server);
  });

  test('request and two cancels in one write: never two responses, never an error for it', async () => {
    const server = await start();
    // One chunk: which of the cancel and the result comes first is a genuine race on the wire
    // (the spec allows either), so zero or one answer is right here; two, or an error, is not.
    server.send([toolCall(8, 'quick'), cancel(8), cancel(8)].map((m) => JSON.stringify(m)).join('\n'));
    await barrier(server, 'p');
    const answers = server.responsesFor(8);
    expect(answers.length).toBeLessThanOrEqual(1);
    for (const answer of answers) expect(answer).toMatchObject({ result: { content: [{ text: 'quick' }] } });
    expect(server.stderr).not.toContain('error:');
    await finish(server);
  });
});

describe('guarantee 10 / scenario 8 on stdio: bad cancellations are ignored', () => {
  test('unknown, missing, null, boolean, object, string-for-number, fractional ids: nothing written, nothing cancelled', async () => {
    const server = new RawServer(fixture('lifecycle-server.js'));
    // initialize is never cancelled: a cancel for it in the same write changes nothing.
    server.send([INITIALIZE, cancel('init')].map((m) => JSON.stringify(m)).join('\n'));
    expect(await server.response('init')).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    server.send(INITIALIZED);
    server.send(toolCall(1, 'gate', { key: 'one' }));
    await stderrShows(server, 'gate one started');
    const before = server.messages.length;
    for (const bad of [
      cancel(999),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} },
      { jsonrpc: '2.0', method: 'notifications/cancelled' },
      cancel(null),
      cancel(true), // a boolean must not be read as id 1
      cancel({ id: 1 }),
      cancel('1'), // ids are exact: "1" is not 1
      cancel(1.5),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: 'not an object' },
    ]) {
      server.send(bad);
    }
    await barrier(server, 'p');
    // The ping's answer is the only thing written since.
    expect(server.messages.slice(before)).toEqual([{ jsonrpc: '2.0', id: 'p', result: {} }]);
    expect(server.stderr).not.toContain('gate one aborted');
    expect(server.stderr).not.toContain('error:');
    // The real cancel still works.
    server.send(cancel(1));
    await stderrShows(server, 'gate one aborted: CancelledByPeerError');
    await barrier(server, 'p2');
    expect(server.responsesFor(1)).toEqual([]);
    await finish(server);
  });
});

describe('scenario 9 on stdio: the cancel scope is one request', () => {
  test('cancelling A leaves a concurrent B running to its own result', async () => {
    const server = await start();
    server.send(toolCall('a', 'gate', { key: 'a' }));
    server.send(toolCall('b', 'gate', { key: 'b' }));
    await stderrShows(server, 'gate a started');
    await stderrShows(server, 'gate b started');
    server.send(cancel('a'));
    await stderrShows(server, 'gate a aborted: CancelledByPeerError');
    server.send(toolCall('o', 'open', { key: 'b' }));
    expect(await server.response('b')).toEqual({
      jsonrpc: '2.0',
      id: 'b',
      result: { content: [{ type: 'text', text: 'opened b' }] },
    });
    await barrier(server, 'p');
    expect(server.responsesFor('a')).toEqual([]);
    expect(server.stderr).not.toContain('gate b aborted');
    await finish(server);
  });
});

describe('guarantee 8 on stdio: nested requests follow their parent', () => {
  test('cancelling a tools/call that waits on elicitation cancels the elicitation request on the wire', async () => {
    const server = await start();
    server.send(toolCall('e', 'elicit'));
    const elicitation = await server.waitFor((m) => m.method === 'elicitation/create', 'elicitation/create');
    server.send(cancel('e'));
    const nestedCancel = await server.waitFor(
      (m) => m.method === 'notifications/cancelled',
      'notifications/cancelled for the elicitation',
    );
    expect(nestedCancel.params.requestId).toBe(elicitation.id);
    await stderrShows(server, 'elicit e nested request failed: RequestAbortedError');
    // A late answer to the cancelled elicitation is ignored; the connection keeps serving.
    server.send({ jsonrpc: '2.0', id: elicitation.id, result: { action: 'accept', content: { unit: 'C' } } });
    await barrier(server, 'p');
    expect(server.responsesFor('e')).toEqual([]);
    expect(server.messages.filter((m) => m.method === 'notifications/cancelled')).toHaveLength(1);
    expect(server.stderr).not.toContain('error:');
    await finish(server);
  });
});

describe('guarantee 11 / scenario 15 on stdio: a context dies with its request', () => {
  test('a kept context after its response: request throws ContextClosedError, log and progress are dropped', async () => {
    const server = await start();
    server.send({
      ...toolCall('k', 'keep'),
      params: { name: 'keep', arguments: {}, _meta: { progressToken: 'tok' } },
    });
    expect(await server.response('k')).toMatchObject({ result: { content: [{ text: 'kept' }] } });
    server.send(toolCall('u', 'use-kept'));
    expect(await server.response('u')).toMatchObject({
      result: { structuredContent: { ended: true, requestError: 'ContextClosedError' } },
    });
    await barrier(server, 'p');
    expect(server.messages.filter((m) => m.method !== undefined)).toEqual([]);
    await finish(server);
  });
});

describe('guarantee 15 on stdio: shutdown is ordered', () => {
  test('EOF: stop reading → abort handlers → fail pending → close the write side → release', async () => {
    const server = await start();
    server.send(toolCall('b', 'gate', { key: 'b' }));
    await stderrShows(server, 'gate b started');
    server.send(toolCall('q', 'ask-roots'));
    await server.response('q');
    await server.waitFor((m) => m.method === 'roots/list', 'roots/list');
    await finish(server);
    const steps = server.stderr.split('\n').filter((line) => line.startsWith('trace: '));
    expect(steps).toEqual([
      'trace: stop reading (end of input)',
      'trace: abort b',
      'trace: close write side (pending: roots/list rejected)',
      'trace: released',
    ]);
    expect(server.stderr).toContain('pending roots/list failed: ConnectionClosedError');
  });

  test.skipIf(process.platform === 'win32')(
    'a local close (SIGTERM handler closes the session): the same order, from the returned iteration',
    async () => {
      const server = await start();
      server.send(toolCall('b', 'gate', { key: 'b' }));
      await stderrShows(server, 'gate b started');
      server.send(toolCall('q', 'ask-roots'));
      await server.response('q');
      server.child.kill('SIGTERM');
      expect(await within(server.exited, WAIT_MS, 'server exit')).toMatchObject({ code: 0, signal: null });
      const steps = server.stderr.split('\n').filter((line) => line.startsWith('trace: '));
      expect(steps).toEqual([
        'trace: stop reading (iteration returned)',
        'trace: abort b',
        'trace: close write side (pending: roots/list rejected)',
        'trace: released',
      ]);
      server.child.stdin!.destroy();
    },
  );
});

describe('scenario 11 on stdio: initialize is never cancelled', () => {
  for (const how of ['times out', 'is aborted by the caller'] as const) {
    test(`a client whose initialize ${how} sends no notifications/cancelled`, async () => {
      let stderr = '';
      let initializeSeen!: () => void;
      const initializeArrived = new Promise<void>((resolve) => (initializeSeen = resolve));
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [fixture('silent-server.js')],
        stderr: 'pipe',
        onStderr: (text) => {
          stderr += text;
          if (stderr.includes('"initialize"')) initializeSeen();
        },
        closeGraceMs: WAIT_MS,
      });
      const client = new Client({ name: 'c', version: '1' });
      const controller = new AbortController();
      const connecting = client
        .connect(transport, how === 'times out' ? { timeoutMs: 300 } : { signal: controller.signal })
        .catch((error: unknown) => error);
      if (how === 'is aborted by the caller') {
        // Abort once the child has the initialize request.
        await within(initializeArrived, WAIT_MS, 'initialize received');
        controller.abort();
      }
      const error = await within(connecting, WAIT_MS, 'connect');
      expect(error).toBeInstanceOf(how === 'times out' ? RequestTimeoutError : RequestAbortedError);
      // connect() closed the transport: the child saw EOF after everything the client wrote.
      await within(client.closed, WAIT_MS, 'client closed');
      expect(transport.exitCode).toBe(0);
      const got = stderr
        .split('\n')
        .filter((line) => line.startsWith('got '))
        .map((line) => JSON.parse(line.slice(4)) as Json);
      expect(got.map((m) => m.method)).toEqual(['initialize']);
      expect(stderr).toContain('eof');
    });
  }
});
