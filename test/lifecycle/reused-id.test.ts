/**
 * Guarantees 1 and 4 with reused ids: a request whose id is still in flight never runs and is
 * refused with an id-null -32600 (an answer with its id would read as the first request's); a
 * finished or cancelled request never evicts a later one that reused its id.
 */
import { expect, test } from 'vitest';
import { CancelledByPeerError, ConnectionClosedError, type JsonRpcMessage } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  aborted,
  deferred,
  expectCleanWire,
  isResponse,
  responsesFor,
  settle,
  type WireMessage,
} from './support/raw-peer.js';
import { call, text, toolServer } from './support/tool-server.js';

useProcessGuard();

const refusal = (id: string | number) => ({
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32600,
    message: `Request id ${JSON.stringify(id)} is already in flight`,
    data: { requestId: id },
  },
});
const nullIdAnswers = (sent: readonly JsonRpcMessage[]): WireMessage[] =>
  (sent as WireMessage[]).filter((m) => isResponse(m) && m.id === null);

test('a request reusing an in-flight id never runs; it gets one id-null -32600 and the first answers once', async () => {
  const gate = deferred();
  const started = deferred();
  let runs = 0;
  const { peer, serverSide, session } = await toolServer({
    first: async () => {
      runs++;
      started.resolve();
      await gate.promise;
      return text('first');
    },
    second: () => {
      runs++;
      return text('second');
    },
  });
  await peer.request('tools/call', call('first'), 7);
  await within(started.promise, 5_000, 'first start');
  await peer.request('tools/call', call('second'), 7);
  expect(await peer.read('the refusal')).toEqual(refusal(7));
  gate.resolve();
  expect(await peer.read('the first response')).toEqual({ jsonrpc: '2.0', id: 7, result: text('first') });
  expect(runs).toBe(1);
  expect(responsesFor(serverSide.sent, 7)).toHaveLength(1);
  expect(nullIdAnswers(serverSide.sent)).toHaveLength(1);
  await session.close();
  expectCleanWire(serverSide);
});

test('a duplicate id with an unknown method is refused as a duplicate, not answered with its id', async () => {
  const gate = deferred();
  const { peer, serverSide, session } = await toolServer({ wait: () => gate.promise.then(() => text('x')) });
  await peer.request('tools/call', call('wait'), 'dup');
  await peer.request('no/such/method', {}, 'dup');
  expect(await peer.read('the refusal')).toEqual(refusal('dup'));
  gate.resolve();
  expect(await peer.read('the answer')).toMatchObject({ id: 'dup', result: text('x') });
  expect(responsesFor(serverSide.sent, 'dup')).toHaveLength(1);
  await session.close();
  expectCleanWire(serverSide);
});

test('python-sdk: a cancelled handler that finishes late does not evict the request that reused its id', async () => {
  const firstGate = deferred();
  const firstStarted = deferred();
  const secondStarted = deferred();
  const secondReason = deferred<unknown>();
  let firstDone = false;
  const { peer, serverSide, session } = await toolServer({
    first: async () => {
      firstStarted.resolve();
      await firstGate.promise; // deaf to its signal: it finishes after the id was reused
      firstDone = true;
      return text('first');
    },
    second: async (_a, ctx) => {
      secondStarted.resolve();
      secondReason.resolve(await aborted(ctx.signal));
      return text('second');
    },
  });
  await peer.request('tools/call', call('first'), 7);
  await within(firstStarted.promise, 5_000, 'first start');
  await peer.cancel(7);
  await peer.request('tools/call', call('second'), 7);
  await within(secondStarted.promise, 5_000, 'second start');
  firstGate.resolve();
  await settle();
  expect(firstDone).toBe(true);
  expect(session.connection.inflightCount).toBe(1);

  await peer.cancel(7);

  expect(await within(secondReason.promise, 5_000, 'second abort')).toBeInstanceOf(CancelledByPeerError);
  await settle();
  expect(responsesFor(serverSide.sent, 7)).toHaveLength(0); // both were cancelled
  expect(session.connection.inflightCount).toBe(0);
  await session.close();
  expectCleanWire(serverSide);
});

test('close aborts the one handler of a reused id; the duplicate never ran', async () => {
  const reasons: unknown[] = [];
  const started = deferred();
  const { peer, serverSide, session } = await toolServer({
    wait: async (_args, ctx) => {
      started.resolve();
      reasons.push(await aborted(ctx.signal));
      return text('x');
    },
  });
  await peer.request('tools/call', call('wait'), 7);
  await within(started.promise, 5_000, 'start');
  await peer.request('tools/call', call('wait'), 7);
  expect(await peer.read('the refusal')).toEqual(refusal(7));

  await session.close(); // a local close answers the unanswered request once

  await settle();
  expect(reasons).toHaveLength(1);
  expect(reasons[0]).toBeInstanceOf(ConnectionClosedError);
  expect(session.connection.inflightCount).toBe(0);
  expect(responsesFor(serverSide.sent, 7)).toEqual([
    { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'Connection closed' } },
  ]);
  expect(nullIdAnswers(serverSide.sent)).toHaveLength(1);
  expectCleanWire(serverSide);
});
