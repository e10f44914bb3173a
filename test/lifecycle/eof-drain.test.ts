/**
 * The stdio EOF policy's option: a drain window (`drainMs`) in which accepted handlers finish and
 * answer normally; whatever is still running when it ends is aborted (and, with the default
 * `answerOnClose`, not answered: EOF means the peer is leaving).
 */
import { afterEach, expect, test, vi } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { aborted, deferred, expectCleanWire, rawPair, responsesFor, withMethod } from './support/raw-peer.js';

useProcessGuard();
afterEach(() => {
  vi.useRealTimers();
});

function drainingServer(drainMs: number): Server {
  return new Server(
    { name: 'drain', version: '1' },
    { capabilities: { tools: {} }, connection: { drainMs } },
  );
}

test('EOF drain: accepted handlers finish within the window and every result is delivered once', async () => {
  const server = drainingServer(60_000);
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

test('EOF drain: a handler still running when the window ends is aborted, and by default not answered', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const server = drainingServer(2_000);
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
  expect(responsesFor(serverSide.sent, 2)).toEqual([]);
  expectCleanWire(serverSide);
});

test('EOF drain: a handler waiting on a server→client request fails fast instead of waiting out the window', async () => {
  const server = drainingServer(60_000);
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
