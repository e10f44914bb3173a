/**
 * Guarantees 1–4 and 10: one cancellation handle per request, peer cancel kept apart from
 * teardown, a cancelled request gets no response, at most one response per id, bad cancels ignored.
 */
import { expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { Connection, CancelledByPeerError, McpError, RequestAbortedError } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { createRecordingPair } from '../helpers/recording-transport.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  aborted,
  deferred,
  expectCleanWire,
  RawPeer,
  responsesFor,
  settle,
  withMethod,
} from './support/raw-peer.js';
import { call, text, toolServer } from './support/tool-server.js';

useProcessGuard();

test('python-sdk#1152: peer cancel aborts the handler, sends no response, and the server keeps serving', async () => {
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
  let calls = 0;
  const firstStarted = deferred();
  let firstReason: unknown;
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    const n = ++calls;
    if (n === 1) {
      firstStarted.resolve();
      firstReason = await aborted(ctx.signal);
      throw firstReason;
    }
    return { content: [{ type: 'text', text: `Call number: ${n}` }] };
  });
  const [clientSide, serverSide] = createRecordingPair();
  const session = server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  const controller = new AbortController();
  const first = client
    .request('tools/call', { name: 'test_tool', arguments: {} }, { signal: controller.signal })
    .catch((e: unknown) => e);
  await within(firstStarted.promise, 5_000, 'first handler');
  const firstId = (withMethod(clientSide.sent, 'tools/call')[0]!.id ?? -1) as number;

  controller.abort('Testing server recovery');
  expect(await within(first, 5_000, 'first call')).toBeInstanceOf(RequestAbortedError);
  const second = await within(
    client.request('tools/call', { name: 'test_tool', arguments: {} }),
    5_000,
    'second',
  );

  expect(second).toEqual({ content: [{ type: 'text', text: 'Call number: 2' }] });
  expect(calls).toBe(2);
  expect(firstReason).toBeInstanceOf(CancelledByPeerError);
  expect(withMethod(clientSide.sent, 'notifications/cancelled')).toEqual([
    {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: firstId, reason: 'Request aborted by the caller' },
    },
  ]);
  await client.close();
  await within(session.closed, 5_000, 'session.closed');
  expectCleanWire(serverSide, [firstId]);
  expectCleanWire(clientSide);
});

test('peer cancel reason is CancelledByPeerError carrying the reason text', async () => {
  const started = deferred();
  const reason = deferred<unknown>();
  const { peer, serverSide, session } = await toolServer({
    wait: async (_a, ctx) => {
      started.resolve();
      reason.resolve(await aborted(ctx.signal));
      return text('ignored');
    },
  });
  await peer.request('tools/call', call('wait'), 1);
  await within(started.promise, 5_000, 'start');
  await peer.cancel(1, 'user pressed stop');
  const why = await within(reason.promise, 5_000, 'abort');
  expect(why).toBeInstanceOf(CancelledByPeerError);
  expect((why as CancelledByPeerError).reason).toBe('user pressed stop');
  await session.close();
  expectCleanWire(serverSide, [1]);
});

test('a handler that ignores the cancel and returns a result: the result is dropped', async () => {
  const started = deferred();
  const done = deferred();
  const { peer, serverSide, session } = await toolServer({
    stubborn: async (_a, ctx) => {
      started.resolve();
      await aborted(ctx.signal);
      setImmediate(() => done.resolve());
      return text('finished anyway');
    },
  });
  await peer.request('tools/call', call('stubborn'), 1);
  await within(started.promise, 5_000, 'start');
  await peer.cancel(1);
  await within(done.promise, 5_000, 'handler end');
  await peer.request('ping', undefined, 2);
  expect(await peer.read('the ping answer')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  expect(responsesFor(serverSide.sent, 1)).toEqual([]);
  await session.close();
  expectCleanWire(serverSide, [1]);
});

for (const kind of ['a plain Error', 'an McpError'] as const) {
  test(`a handler that throws ${kind} after the cancel: no error response, the connection keeps serving`, async () => {
    const started = deferred();
    const thrown = deferred();
    const { peer, serverSide, session, logs } = await toolServer({
      fails: async (_a, ctx) => {
        started.resolve();
        await aborted(ctx.signal);
        setImmediate(() => thrown.resolve());
        throw kind === 'an McpError' ? new McpError(4242, 'gave up') : new Error('gave up');
      },
    });
    await peer.request('tools/call', call('fails'), 1);
    await within(started.promise, 5_000, 'start');
    await peer.cancel(1);
    await within(thrown.promise, 5_000, 'throw');
    await peer.request('ping', undefined, 2);
    expect(await peer.read('the ping answer')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(responsesFor(serverSide.sent, 1)).toEqual([]);
    // Logged at most, and only at debug level: the failure is expected after a cancel.
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    await session.close();
    expectCleanWire(serverSide, [1]);
  });
}

// python-sdk#2416: duplicate cancels racing a result. Each case is made deterministic so that it
// can assert an exact count: which side wins a true race is an implementation detail (both are
// allowed), "at most one answer" is the guarantee.
for (const when of ['in the same tick as the request', 'after the response was read'] as const) {
  test(`python-sdk#2416: a sync handler's result and (duplicate) cancels sent ${when}: exactly one response, the result`, async () => {
    const { peer, serverSide, session, logs } = await toolServer({ quick: () => text('quick') });
    void peer.request('tools/call', call('quick'), 1);
    if (when === 'in the same tick as the request') {
      void peer.cancel(1);
      void peer.cancel(1);
    } else {
      expect(await peer.read('the result')).toMatchObject({ id: 1, result: text('quick') });
      await peer.cancel(1);
      await peer.cancel(1);
    }
    await peer.request('ping', undefined, 2);
    await peer.readUntil((m) => m.id === 2, 'the ping answer');
    // A sync handler settles before the engine reads the next message: the cancels find a finished
    // request and are ignored.
    const answers = responsesFor(serverSide.sent, 1);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ result: text('quick') });
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    await session.close();
    expectCleanWire(serverSide);
  });
}

test("python-sdk#2416: (duplicate) cancels read while an async handler's result is on its way: exactly zero responses", async () => {
  const gate = deferred();
  const { peer, serverSide, session, logs } = await toolServer({
    quick: async () => {
      await gate.promise;
      return text('quick');
    },
  });
  void peer.request('tools/call', call('quick'), 1);
  void peer.cancel(1);
  void peer.cancel(1);
  await peer.request('ping', undefined, 2);
  await peer.readUntil((m) => m.id === 2, 'the ping answer');
  // The cancels were read before the handler settled: its result must be dropped.
  gate.resolve();
  await peer.request('ping', undefined, 3);
  await peer.readUntil((m) => m.id === 3, 'the second ping answer');
  expect(responsesFor(serverSide.sent, 1)).toEqual([]);
  expect(logs.filter((l) => l.level === 'error')).toEqual([]);
  await session.close();
  expectCleanWire(serverSide, [1]);
});

test('bad cancels are ignored: unknown, missing, null, boolean, object, string-for-number ids', async () => {
  const started = deferred();
  let reason: unknown;
  const { peer, serverSide, session, logs } = await toolServer({
    wait: async (_a, ctx) => {
      started.resolve();
      reason = await aborted(ctx.signal);
      return text('ended');
    },
  });
  await peer.request('tools/call', call('wait'), 1);
  await within(started.promise, 5_000, 'start');
  const before = serverSide.sent.length;

  await peer.cancel(999);
  await peer.notify('notifications/cancelled', {});
  await peer.notify('notifications/cancelled');
  await peer.cancel(null);
  await peer.cancel(true); // a boolean must not be read as id 1
  await peer.cancel({ id: 1 });
  await peer.cancel('1'); // ids are exact: "1" is not 1
  await peer.cancel(1.5);
  await peer.send({ method: 'notifications/cancelled', params: 'not an object' });
  await peer.request('ping', undefined, 2);
  expect(await peer.read('the ping answer')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });

  expect(reason).toBeUndefined();
  expect(serverSide.sent.length).toBe(before + 1);
  expect(logs.filter((l) => l.level === 'error')).toEqual([]);
  await peer.cancel(1);
  await settle();
  expect(reason).toBeInstanceOf(CancelledByPeerError);
  await session.close();
  expectCleanWire(serverSide, [1]);
});

test('cancel scope is one request: cancelling A leaves a concurrent B running to its own result', async () => {
  const gates = { a: deferred(), b: deferred() };
  const reasons: Record<string, unknown> = {};
  const bothStarted = { a: deferred(), b: deferred() };
  const blocking = (key: 'a' | 'b') => async (_args: unknown, ctx: { signal: AbortSignal }) => {
    bothStarted[key].resolve();
    const outcome = await Promise.race([gates[key].promise.then(() => 'released'), aborted(ctx.signal)]);
    if (outcome !== 'released') reasons[key] = outcome;
    return text(`result ${key}`);
  };
  const { peer, serverSide, session } = await toolServer({ a: blocking('a'), b: blocking('b') });
  await peer.request('tools/call', call('a'), 1);
  await peer.request('tools/call', call('b'), 2);
  await within(Promise.all([bothStarted.a.promise, bothStarted.b.promise]), 5_000, 'start');

  await peer.cancel(1);
  gates.b.resolve();

  expect(await peer.read('the result of B')).toEqual({ jsonrpc: '2.0', id: 2, result: text('result b') });
  expect(reasons.a).toBeInstanceOf(CancelledByPeerError);
  expect(reasons.b).toBeUndefined();
  await session.close();
  expectCleanWire(serverSide, [1]);
});

test('ids 0 and "" are valid: answered with the same id, and cancellable', async () => {
  const started = { zero: deferred(), empty: deferred() };
  const reasons: unknown[] = [];
  const { peer, serverSide, session } = await toolServer({
    echo: (args) => text(String(args.v)),
    wait: async (args, ctx) => {
      started[args.key as 'zero' | 'empty'].resolve();
      reasons.push(await aborted(ctx.signal));
      return text('late');
    },
  });
  await peer.request('tools/call', call('echo', { v: 'zero' }), 0);
  expect(await peer.read()).toEqual({ jsonrpc: '2.0', id: 0, result: text('zero') });
  await peer.request('tools/call', call('echo', { v: 'empty' }), '');
  expect(await peer.read()).toEqual({ jsonrpc: '2.0', id: '', result: text('empty') });

  await peer.request('tools/call', call('wait', { key: 'zero' }), 0);
  await peer.request('tools/call', call('wait', { key: 'empty' }), '');
  await within(Promise.all([started.zero.promise, started.empty.promise]), 5_000, 'start');
  await peer.cancel(0);
  await peer.cancel('');
  await settle();

  expect(reasons).toHaveLength(2);
  for (const reason of reasons) expect(reason).toBeInstanceOf(CancelledByPeerError);
  expect(responsesFor(serverSide.sent, 0)).toHaveLength(1);
  expect(responsesFor(serverSide.sent, '')).toHaveLength(1);
  await session.close();
  expectCleanWire(serverSide);
});

test('the id-0 request of a client is correlated and cancelled like any other', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const peer = new RawPeer(remote);
  const controller = new AbortController();
  const first = connection.request('first', {}, { signal: controller.signal }).catch((e: unknown) => e);
  expect(await peer.read()).toMatchObject({ id: 0, method: 'first' });
  controller.abort();
  expect(await peer.read()).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 0 } });
  expect(await first).toBeInstanceOf(RequestAbortedError);
  await connection.close();
  expectCleanWire(local);
});

test('initialize is never cancelled: a cancel for an in-flight initialize is ignored', async () => {
  const [peerSide, local] = createRecordingPair();
  const connection = new Connection(local);
  const gate = deferred();
  let reason: unknown;
  connection.setRequestHandler('initialize', async (_params, ctx) => {
    ctx.signal.addEventListener('abort', () => (reason = ctx.signal.reason));
    await gate.promise;
    return { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } };
  });
  void connection.start();
  const peer = new RawPeer(peerSide);
  await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {} }, 1);
  await peer.cancel(1);
  await settle();
  gate.resolve();
  expect(await peer.read()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  expect(reason).toBeUndefined();
  await connection.close();
  expectCleanWire(local);
});
