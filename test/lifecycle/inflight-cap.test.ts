/**
 * Issue 9 item 6 (engine part): at most `maxInflight` handlers run per connection; later requests
 * wait in arrival order without running, cancels still reach them, and past `maxQueued` the engine
 * stops pulling from the transport until a waiting request starts (backpressure).
 */
import { expect, test } from 'vitest';
import { Connection, type ConnectionOptions, type RequestId } from 'keel-mcp/core';
import { MemoryTransport } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { RecordingTransport } from '../helpers/recording-transport.js';
import {
  deferred,
  expectCleanWire,
  RawPeer,
  responsesFor,
  settle,
  type Deferred,
} from './support/raw-peer.js';

useProcessGuard();

/** Counts the messages the engine pulled from the transport. */
class CountingTransport extends RecordingTransport {
  pulled = 0;
  override [Symbol.asyncIterator](): AsyncIterator<unknown> {
    const inner = super[Symbol.asyncIterator]();
    return {
      next: async () => {
        const next = await inner.next();
        if (!next.done) this.pulled++;
        return next;
      },
      return: () => inner.return!(),
    };
  }
}

/** A connection whose `job` handlers each wait for their own gate. */
function gated(options: ConnectionOptions) {
  const local = new CountingTransport();
  const remote = new RecordingTransport();
  MemoryTransport.link(local, remote);
  const connection = new Connection(local, options);
  const started: RequestId[] = [];
  const gates = new Map<RequestId, Deferred>();
  const startedEvent = new Map<RequestId, Deferred>();
  const gate = (id: RequestId) => {
    if (!gates.has(id)) gates.set(id, deferred());
    return gates.get(id)!;
  };
  const startedOf = (id: RequestId) => {
    if (!startedEvent.has(id)) startedEvent.set(id, deferred());
    return startedEvent.get(id)!;
  };
  connection.setRequestHandler('job', async (_p, ctx) => {
    started.push(ctx.id);
    startedOf(ctx.id).resolve();
    await gate(ctx.id).promise;
    return { id: ctx.id };
  });
  const closed = connection.start();
  return { connection, closed, local, peer: new RawPeer(remote), started, gate, startedOf };
}

test('past maxInflight requests wait without running and start in arrival order', async () => {
  const { connection, local, peer, started, gate, startedOf } = gated({ maxInflight: 2 });
  for (const id of [1, 2, 3, 4]) await peer.request('job', {}, id);
  await within(startedOf(2).promise, 5_000, 'second start');
  await settle();
  expect(started).toEqual([1, 2]);
  expect(connection.queuedCount).toBe(2);
  expect(connection.inflightCount).toBe(4);

  gate(2).resolve();
  expect(await peer.read('answer 2')).toEqual({ jsonrpc: '2.0', id: 2, result: { id: 2 } });
  await within(startedOf(3).promise, 5_000, 'third start');
  expect(started).toEqual([1, 2, 3]);
  gate(1).resolve();
  await within(startedOf(4).promise, 5_000, 'fourth start');
  gate(3).resolve();
  gate(4).resolve();
  for (const id of [1, 3, 4]) await peer.readUntil((m) => m.id === id, `answer ${id}`);
  expect(started).toEqual([1, 2, 3, 4]);
  expect(connection.queuedCount).toBe(0);
  await connection.close();
  expectCleanWire(local);
});

test('a cancel for a waiting request is read while the cap is full; that request never runs and gets no answer', async () => {
  const { connection, local, peer, started, gate, startedOf } = gated({ maxInflight: 1 });
  await peer.request('job', {}, 1);
  await peer.request('job', {}, 2);
  await peer.request('job', {}, 3);
  await within(startedOf(1).promise, 5_000, 'first start');
  await peer.cancel(2);
  await peer.request('ping', {}, 'p'); // no handler: answered at once, though the cap is full
  expect(await peer.read('the ping answer')).toMatchObject({ id: 'p', error: { code: -32601 } });
  expect(connection.queuedCount).toBe(1);

  gate(1).resolve();
  await within(startedOf(3).promise, 5_000, 'third start');
  gate(3).resolve();
  await peer.readUntil((m) => m.id === 3, 'answer 3');
  expect(started).toEqual([1, 3]);
  expect(responsesFor(local.sent, 2)).toEqual([]);
  await connection.close();
  expectCleanWire(local, [2]);
});

test('a request reusing the id of a waiting request is refused and never runs', async () => {
  const { connection, local, peer, started, gate, startedOf } = gated({ maxInflight: 1 });
  await peer.request('job', {}, 1);
  await peer.request('job', {}, 2);
  await peer.request('job', {}, 2);
  expect(await peer.read('the refusal')).toMatchObject({
    id: null,
    error: { code: -32600, data: { requestId: 2 } },
  });
  gate(1).resolve();
  await within(startedOf(2).promise, 5_000, 'second start');
  gate(2).resolve();
  await peer.readUntil((m) => m.id === 2, 'answer 2');
  expect(started).toEqual([1, 2]);
  expect(responsesFor(local.sent, 2)).toHaveLength(1);
  await connection.close();
});

test('past maxQueued the engine stops pulling from the transport until a waiting request starts', async () => {
  // A long queueWaitMs: this test is about the pause itself, not about reading on after it.
  const { connection, local, peer, gate, startedOf } = gated({
    maxInflight: 1,
    maxQueued: 2,
    queueWaitMs: 60_000,
  });
  for (const id of [1, 2, 3]) await peer.request('job', {}, id);
  await within(startedOf(1).promise, 5_000, 'first start');
  await peer.request('ping', {}, 'p');
  await peer.request('job', {}, 4);
  await peer.request('job', {}, 5);
  await settle();
  await settle();
  expect(local.pulled).toBe(3); // 1 running, 2 waiting: full
  expect(responsesFor(local.sent, 'p')).toEqual([]);

  gate(1).resolve(); // 2 starts, the queue has room: ping and 4 are read, then it is full again
  await peer.readUntil((m) => m.id === 'p', 'the ping answer');
  await settle();
  await settle();
  expect(local.pulled).toBe(5);
  expect(connection.queuedCount).toBe(2);
  await connection.close();
});

test('review: handlers stuck until a cancel that sits behind a full queue: after queueWaitMs the engine reads on, the cancel arrives, new requests are refused with -32010 meanwhile', async () => {
  const { connection, local, peer, started, startedOf } = gated({
    maxInflight: 1,
    maxQueued: 1,
    queueWaitMs: 1,
  });
  const aborted = deferred<unknown>();
  connection.setRequestHandler('stuck', async (_p, ctx) => {
    started.push(ctx.id);
    startedOf(ctx.id).resolve();
    aborted.resolve(
      await new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(ctx.signal.reason))),
    );
    return {};
  });
  await peer.request('stuck', {}, 1); // runs, waits for its cancel
  await within(startedOf(1).promise, 5_000, 'first start');
  await peer.request('job', {}, 2); // waits: the queue is full
  await peer.request('job', {}, 3); // read once the pause timed out: refused, never runs
  await peer.cancel(1); // read too: the stuck handler is released
  expect(await within(aborted.promise, 5_000, 'the stuck handler aborted')).toBeDefined();
  await within(startedOf(2).promise, 5_000, 'the waiting request starts');
  expect(await peer.readUntil((m) => m.id === 3, 'the refusal')).toMatchObject({
    id: 3,
    error: { code: -32010 },
  });
  expect(started).toEqual([1, 2]);
  expect(responsesFor(local.sent, 1)).toEqual([]);
  expect(responsesFor(local.sent, 3)).toHaveLength(1);
  await connection.close();
});

test('review: request+cancel pairs while every slot is stuck do not grow the queue without bound', async () => {
  const { connection, peer, startedOf } = gated({ maxInflight: 1, maxQueued: 10_000 });
  await peer.request('job', {}, 'stuck');
  await within(startedOf('stuck').promise, 5_000, 'first start');
  for (let i = 0; i < 500; i++) {
    await peer.request('job', {}, i);
    await peer.cancel(i);
  }
  await peer.request('ping-unknown', {}, 'probe');
  await peer.readUntil((m) => m.id === 'probe', 'the probe answer');
  expect(connection.queuedCount).toBe(0);
  const slots = (connection as unknown as { inbound: { queueSlots: number } }).inbound.queueSlots;
  expect(slots).toBeLessThanOrEqual(65);
  await connection.close();
});

test('review: a logger that throws does not stall the queue or surface as an unhandled rejection', async () => {
  const throwing = {
    debug(): void {
      throw new Error('logger down');
    },
    error(): void {
      throw new Error('logger down');
    },
  };
  const { connection, peer, started, startedOf } = gated({ maxInflight: 1, logger: throwing });
  connection.setRequestHandler('fails-late', async (_p, ctx) => {
    started.push(ctx.id);
    startedOf(ctx.id).resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    throw new Error('failed after its cancel'); // logged at debug: the logger throws
  });
  await peer.request('fails-late', {}, 1);
  await within(startedOf(1).promise, 5_000, 'first start');
  await peer.request('job', {}, 2); // waits for the slot
  await peer.cancel(1);
  await within(startedOf(2).promise, 5_000, 'the waiting request starts');
  expect(started).toEqual([1, 2]);
  await connection.close();
});

test('close: waiting requests never run; a local close answers running and waiting ones once each', async () => {
  const { connection, closed, local, peer, started, startedOf } = gated({ maxInflight: 1 });
  for (const id of [1, 2, 3]) await peer.request('job', {}, id);
  await within(startedOf(1).promise, 5_000, 'first start');
  await settle();

  await connection.close();
  await within(closed, 5_000, 'closed');
  await settle();

  expect(started).toEqual([1]);
  for (const id of [1, 2, 3]) {
    expect(responsesFor(local.sent, id)).toEqual([
      { jsonrpc: '2.0', id, error: { code: -32000, message: 'Connection closed' } },
    ]);
  }
  expect(connection.inflightCount).toBe(0);
  expectCleanWire(local);
});

test('EOF: waiting requests never run and, by default, nothing is written for them', async () => {
  const { connection, closed, local, peer, started, startedOf } = gated({ maxInflight: 1 });
  for (const id of [1, 2]) await peer.request('job', {}, id);
  await within(startedOf(1).promise, 5_000, 'first start');
  local.endInput();
  await within(closed, 5_000, 'closed');
  await settle();
  expect(started).toEqual([1]);
  expect(responsesFor(local.sent, 1)).toEqual([]);
  expect(responsesFor(local.sent, 2)).toEqual([]);
  expect(connection.queuedCount).toBe(0);
});

test('maxInflight and maxQueued below 1 are refused with a RangeError', () => {
  const [a] = [new MemoryTransport()];
  expect(() => new Connection(a, { maxInflight: 0 })).toThrow(RangeError);
  expect(() => new Connection(a, { maxQueued: Number.NaN })).toThrow(RangeError);
});
