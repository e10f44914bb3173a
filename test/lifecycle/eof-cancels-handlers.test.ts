/**
 * Guarantee 5 (close cancels, it does not wait), 6 (pending fail once), 7 (dead writes dropped) and
 * the stdio EOF policy, over an in-memory pair driven by hand.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { Connection, type ConnectionOptions } from '../../src/core/engine/index.js';
import { ConnectionClosedError } from '../../src/core/errors.js';
import { Server } from '../../src/server/index.js';
import { createMemoryPair } from '../../src/transports/memory/index.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  aborted,
  deferred,
  expectCleanWire,
  RawPeer,
  rawPair,
  responsesFor,
  settle,
  withMethod,
} from './support/raw-peer.js';

useProcessGuard();
afterEach(() => {
  vi.useRealTimers();
});

function newServer(connection?: ConnectionOptions): Server {
  return new Server({ name: 'eof', version: '1' }, { capabilities: { tools: {} }, connection });
}

const closedAnswer = (id: number) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32000, message: 'Connection closed' },
});

test('python-sdk#2306: two handlers blocked on roots/list when input closes', async () => {
  const server = newServer();
  const failures: unknown[] = [];
  const cleanedUp: unknown[] = [];
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    try {
      await ctx.request('roots/list', {});
      return { content: [] };
    } catch (error) {
      failures.push(error);
      throw error;
    } finally {
      cleanedUp.push(ctx.id);
    }
  });
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  await peer.request('tools/call', { name: 'a' }, 2);
  await peer.request('tools/call', { name: 'b' }, 3);
  // Drain both outgoing roots/list requests: both handlers are now parked in the pending table.
  const first = await peer.read('the first roots/list');
  const second = await peer.read('the second roots/list');
  expect([first.method, second.method]).toEqual(['roots/list', 'roots/list']);
  expect(session.connection.pendingCount).toBe(2);

  serverSide.endInput(); // what stdin EOF does

  await within(session.closed, 5_000, 'session.closed');
  await settle();
  expect(failures).toHaveLength(2);
  for (const failure of failures) expect(failure).toBeInstanceOf(ConnectionClosedError);
  expect(cleanedUp.sort()).toEqual([2, 3]);
  expect(session.connection.pendingCount).toBe(0);
  expect(session.connection.inflightCount).toBe(0);
  expect(server.sessions.size).toBe(0);
  // Default EOF policy: the write side is still open, so each unanswered request gets exactly one
  // connection-closed error; the handlers' own error answers come later and are dropped.
  expect(responsesFor(serverSide.sent, 2)).toEqual([closedAnswer(2)]);
  expect(responsesFor(serverSide.sent, 3)).toEqual([closedAnswer(3)]);
  expectCleanWire(serverSide);
  expect(await peer.inputEnds()).toBe(true);
});

test('python-sdk#2306: handlers blocked on roots/list when the peer is gone drop their answers', async () => {
  const server = newServer();
  const failures: unknown[] = [];
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    try {
      return await ctx.request('roots/list', {});
    } catch (error) {
      failures.push(error);
      throw error;
    }
  });
  const { peer, peerSide, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  await peer.request('tools/call', { name: 'a' }, 2);
  await peer.request('tools/call', { name: 'b' }, 3);
  await peer.read('roots/list');
  await peer.read('roots/list');
  const before = serverSide.sent.length;

  await peerSide.close(); // both directions dead: every answer meets a closed transport

  await within(session.closed, 5_000, 'session.closed');
  await settle();
  expect(failures.map((e) => e instanceof ConnectionClosedError)).toEqual([true, true]);
  expect(serverSide.sent.length).toBe(before);
  expectCleanWire(serverSide);
  expectCleanWire(peerSide);
});

test('EOF aborts in-flight handlers and settles serve without throwing', async () => {
  const server = newServer();
  const started = deferred();
  let reason: unknown;
  let cleanedUp = false;
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    started.resolve();
    try {
      reason = await aborted(ctx.signal);
      throw reason;
    } finally {
      cleanedUp = true;
    }
  });
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  await peer.request('tools/call', { name: 'wait' }, 2);
  await within(started.promise, 5_000, 'handler start');

  serverSide.endInput();

  await expect(within(session.closed, 5_000, 'session.closed')).resolves.toBeUndefined();
  await settle();
  expect(reason).toBeInstanceOf(ConnectionClosedError);
  expect(cleanedUp).toBe(true);
  expect(responsesFor(serverSide.sent, 2)).toEqual([closedAnswer(2)]);
  expectCleanWire(serverSide);
});

test('EOF aborts an in-flight handler on a bare connection with no handshake (era-neutral engine)', async () => {
  const [peerSide, local] = createMemoryPair();
  const connection = new Connection(local);
  const started = deferred();
  let reason: unknown;
  let cleanedUp = false;
  connection.setRequestHandler('tools/call', async (_params, ctx) => {
    started.resolve();
    try {
      reason = await aborted(ctx.signal);
      return {};
    } finally {
      cleanedUp = true;
    }
  });
  const closed = connection.start();
  const peer = new RawPeer(peerSide);
  await peer.request('tools/call', { name: 'wait', _meta: { progressToken: 1 } }, 2);
  await within(started.promise, 5_000, 'handler start');

  local.endInput();

  await expect(within(closed, 5_000, 'closed')).resolves.toBeUndefined();
  await settle();
  expect(reason).toBeInstanceOf(ConnectionClosedError);
  expect(cleanedUp).toBe(true);
  expect(responsesFor(local.sent, 2)).toEqual([closedAnswer(2)]);
  expectCleanWire(local);
});

test('with answerOnClose off, EOF writes nothing for the aborted request', async () => {
  const server = newServer({ answerOnClose: false });
  const started = deferred();
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    started.resolve();
    await aborted(ctx.signal);
    return { content: [{ type: 'text', text: 'too late' }] };
  });
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  await peer.request('tools/call', { name: 'wait' }, 2);
  await within(started.promise, 5_000, 'handler start');

  serverSide.endInput();

  await within(session.closed, 5_000, 'session.closed');
  await settle();
  expect(responsesFor(serverSide.sent, 2)).toEqual([]);
  expectCleanWire(serverSide);
});

test('close does not wait for a handler that ignores the abort, and its late result is dropped', async () => {
  const server = newServer();
  const started = deferred();
  const gate = deferred();
  let finished = false;
  server.setRequestHandler('tools/call', async () => {
    started.resolve();
    await gate.promise; // deaf to ctx.signal
    finished = true;
    return { content: [] };
  });
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  await peer.request('tools/call', { name: 'deaf' }, 2);
  await within(started.promise, 5_000, 'handler start');

  serverSide.endInput();
  await within(session.closed, 5_000, 'session.closed');
  expect(finished).toBe(false);

  gate.resolve();
  await settle();
  expect(finished).toBe(true);
  expect(responsesFor(serverSide.sent, 2)).toEqual([closedAnswer(2)]);
  expectCleanWire(serverSide);
});

test('an idle session ends on EOF: closed settles, the session is released, nothing is written', async () => {
  const server = newServer();
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  const before = serverSide.sent.length;
  let closeCallbacks = 0;
  session.connection.onClose(() => closeCallbacks++);

  serverSide.endInput();

  await within(session.closed, 5_000, 'session.closed');
  expect(server.sessions.size).toBe(0);
  expect(serverSide.sent.length).toBe(before);
  expect(await peer.inputEnds()).toBe(true);
  await session.close(); // idempotent
  expect(closeCallbacks).toBe(1);
  expectCleanWire(serverSide);
});

test('EOF drain: accepted handlers finish within the window and every result is delivered once', async () => {
  const server = newServer({ drainMs: 60_000 });
  const gates = [deferred(), deferred(), deferred()];
  let started = 0;
  const allStarted = deferred();
  server.setRequestHandler('tools/call', async (params) => {
    const index = params.index as number;
    if (++started === 3) allStarted.resolve();
    await gates[index]!.promise;
    return { content: [{ type: 'text', text: `done ${index}` }] };
  });
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  for (const index of [0, 1, 2]) await peer.request('tools/call', { name: 'batch', index }, 10 + index);
  serverSide.endInput(); // `server < requests.jsonl`: EOF right after the last line
  await within(allStarted.promise, 5_000, 'handlers start');

  for (const gate of gates) gate.resolve();

  // The drain ends as soon as the last handler finishes, long before the 60 s window.
  await within(session.closed, 5_000, 'session.closed');
  for (const index of [0, 1, 2]) {
    const answers = responsesFor(serverSide.sent, 10 + index);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ result: { content: [{ text: `done ${index}` }] } });
  }
  expectCleanWire(serverSide);
});

test('EOF drain: a handler still running when the window ends is aborted and answered once', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const server = newServer({ drainMs: 2_000 });
  let reason: unknown;
  const started = deferred();
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    started.resolve();
    reason = await aborted(ctx.signal);
    return { content: [] };
  });
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  await peer.request('tools/call', { name: 'slow' }, 2);
  await started.promise;
  serverSide.endInput();
  let closed = false;
  void session.closed.then(() => (closed = true));

  await vi.advanceTimersByTimeAsync(1_999);
  expect(closed).toBe(false);
  expect(reason).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1);
  await session.closed;

  expect(reason).toBeInstanceOf(ConnectionClosedError);
  expect(responsesFor(serverSide.sent, 2)).toEqual([closedAnswer(2)]);
  expectCleanWire(serverSide);
});

test('EOF drain: a handler waiting on a server→client request fails fast instead of waiting out the window', async () => {
  const server = newServer({ drainMs: 60_000 });
  const failure = deferred<unknown>();
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    try {
      return await ctx.request('roots/list', {});
    } catch (error) {
      failure.resolve(error);
      return { content: [{ type: 'text', text: 'no roots' }] };
    }
  });
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  await peer.initialize();
  await peer.request('tools/call', { name: 'roots' }, 2);
  await peer.read('roots/list');

  serverSide.endInput(); // no answer to roots/list can arrive any more

  expect(await within(failure.promise, 2_000, 'the roots/list failure')).toBeInstanceOf(
    ConnectionClosedError,
  );
  await within(session.closed, 2_000, 'session.closed');
  // The handler finished inside the drain, so its own answer is the one delivered.
  expect(responsesFor(serverSide.sent, 2)).toMatchObject([{ result: { content: [{ text: 'no roots' }] } }]);
  expect(withMethod(serverSide.sent, 'roots/list')).toHaveLength(1);
  expectCleanWire(serverSide);
});
