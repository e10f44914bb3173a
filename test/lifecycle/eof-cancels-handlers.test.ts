/**
 * Guarantee 5 (close cancels, it does not wait), 6 (pending fail once), 7 (dead writes dropped) and
 * the stdio EOF policy, over an in-memory pair driven by hand.
 */
import { expect, test } from 'vitest';
import { Connection, type ConnectionOptions, ConnectionClosedError } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { createRecordingPair } from '../helpers/recording-transport.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  aborted,
  deferred,
  expectCleanWire,
  RawPeer,
  rawPair,
  responsesFor,
  settle,
} from './support/raw-peer.js';

useProcessGuard();

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
  // Default EOF policy: the peer is leaving, so nothing more is written for the aborted requests
  // (neither a shutdown error nor the handlers' own late error answers).
  expect(responsesFor(serverSide.sent, 2)).toEqual([]);
  expect(responsesFor(serverSide.sent, 3)).toEqual([]);
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
  expect(responsesFor(serverSide.sent, 2)).toEqual([]);
  expectCleanWire(serverSide);
});

test('EOF aborts an in-flight handler on a bare connection with no handshake (era-neutral engine)', async () => {
  const [peerSide, local] = createRecordingPair();
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
  expect(responsesFor(local.sent, 2)).toEqual([]);
  expectCleanWire(local);
});

test('a local close (not EOF) answers each unanswered request once with -32000 by default', async () => {
  const [peerSide, local] = createRecordingPair();
  const connection = new Connection(local);
  const started = deferred();
  let late = 0;
  connection.setRequestHandler('tools/call', async (_params, ctx) => {
    started.resolve();
    await aborted(ctx.signal);
    late++;
    return {};
  });
  const closed = connection.start();
  const peer = new RawPeer(peerSide);
  await peer.request('tools/call', { name: 'wait' }, 2);
  await within(started.promise, 5_000, 'handler start');

  await connection.close(); // the server shuts down while the peer still reads

  await within(closed, 5_000, 'closed');
  await settle();
  expect(late).toBe(1);
  expect(await peer.read('the shutdown answer')).toEqual(closedAnswer(2));
  expect(responsesFor(local.sent, 2)).toEqual([closedAnswer(2)]);
  expectCleanWire(local);
});

test('with answerOnClose: true, EOF answers each unanswered request once with -32000', async () => {
  const server = newServer({ answerOnClose: true });
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
  // Exactly one answer: the shutdown error; the handler's late result is dropped.
  expect(responsesFor(serverSide.sent, 2)).toEqual([closedAnswer(2)]);
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
  expect(responsesFor(serverSide.sent, 2)).toEqual([]);
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
