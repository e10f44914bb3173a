/**
 * Guarantee 1: removing a finished request never evicts a later request that reused its id.
 */
import { expect, test } from 'vitest';
import { CancelledByPeerError, ConnectionClosedError } from '../../src/core/errors.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { aborted, deferred, expectCleanWire, responsesFor, settle } from './support/raw-peer.js';
import { call, text, toolServer } from './support/tool-server.js';

useProcessGuard();

test('python-sdk: a completed handler does not evict a reused request id from the in-flight table', async () => {
  const firstGate = deferred();
  const secondStarted = deferred();
  const secondReason = deferred<unknown>();
  const { peer, serverSide, session } = await toolServer({
    first: async () => {
      await firstGate.promise; // its result is written only after the id was reused
      return text('first');
    },
    second: async (_a, ctx) => {
      secondStarted.resolve();
      secondReason.resolve(await aborted(ctx.signal));
      return text('second');
    },
  });
  await peer.request('tools/call', call('first'), 7);
  await peer.request('tools/call', call('second'), 7);
  await within(secondStarted.promise, 5_000, 'second start');
  firstGate.resolve();
  expect(await peer.read('the first response')).toEqual({ jsonrpc: '2.0', id: 7, result: text('first') });
  expect(session.connection.inflightCount).toBe(1);

  await peer.cancel(7);

  expect(await within(secondReason.promise, 5_000, 'second abort')).toBeInstanceOf(CancelledByPeerError);
  await settle();
  expect(responsesFor(serverSide.sent, 7)).toHaveLength(1);
  await session.close();
  expectCleanWire(serverSide);
});

test('close aborts every handler, including one whose id was reused while it ran', async () => {
  const reasons: unknown[] = [];
  const started = [deferred(), deferred()];
  const { peer, serverSide, session } = await toolServer({
    wait: async (args, ctx) => {
      started[args.n as number]!.resolve();
      reasons.push(await aborted(ctx.signal));
      return text('x');
    },
  });
  await peer.request('tools/call', call('wait', { n: 0 }), 7);
  await peer.request('tools/call', call('wait', { n: 1 }), 7);
  await within(Promise.all(started.map((s) => s.promise)), 5_000, 'start');

  serverSide.endInput();
  await within(session.closed, 5_000, 'session.closed');
  await settle();

  expect(reasons).toHaveLength(2);
  for (const reason of reasons) expect(reason).toBeInstanceOf(ConnectionClosedError);
  expect(session.connection.inflightCount).toBe(0);
  // The peer broke the id rule; we still never write two answers for one id on shutdown.
  expect(responsesFor(serverSide.sent, 7).length).toBeLessThanOrEqual(1);
  expect(serverSide.sentAfterClose).toEqual([]);
});
