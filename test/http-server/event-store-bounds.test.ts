/**
 * Issue 9 item 8: the default event store is bounded by bytes and age, drops finished streams
 * before live ones, and a live stream that had to go is ended with a clear error (its reader gets
 * one -32000 error for the request; a later resumption gets 400, never a hang).
 */
import { describe, expect, test } from 'vitest';
import { ConnectionClosedError, type JsonRpcMessage } from 'keel-mcp/core';
import { createHttpHandler, InMemoryEventStore, StreamEvictedError } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { call, initialize } from './support/direct.js';
import { callTool, createTestServer, Probes, SseReader } from './support/harness.js';

useProcessGuard();

/** A message whose JSON text is exactly `size` characters long. */
function sized(size: number): { message: JsonRpcMessage; data: string } {
  const empty = JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { p: '' } });
  const message: JsonRpcMessage = {
    jsonrpc: '2.0',
    method: 'm',
    params: { p: 'x'.repeat(size - empty.length) },
  };
  return { message, data: JSON.stringify(message) };
}

function store(streamId: string, target: InMemoryEventStore, size = 1_000): string {
  const { message, data } = sized(size);
  return target.storeEvent(streamId, message, data);
}

const replayed = (target: InMemoryEventStore, after: string) => {
  const ids: string[] = [];
  const stream = target.replayEventsAfter(after, (id) => ids.push(id));
  return { stream, ids };
};

describe('InMemoryEventStore bounds', () => {
  test('past maxBytes finished streams go first, oldest finished first; live ones stay', () => {
    const target = new InMemoryEventStore({ maxBytes: 5_000 });
    const live = store('live', target);
    const older = store('done-1', target);
    const newer = store('done-2', target);
    target.finishStream('done-1');
    target.finishStream('done-2');
    store('live', target);
    expect(target.storedBytes).toBeLessThanOrEqual(5_000);
    store('other', target); // over the limit: 'done-1' goes
    expect(replayed(target, older).stream).toBeUndefined();
    expect(replayed(target, newer).stream).toBe('done-2');
    store('other', target); // 'done-2' goes
    expect(replayed(target, newer).stream).toBeUndefined();
    expect(replayed(target, live)).toMatchObject({ stream: 'live', ids: ['live_1'] });
    expect(target.storedBytes).toBeLessThanOrEqual(5_000);
  });

  test('with only live streams, the oldest is evicted and refused from then on', () => {
    const target = new InMemoryEventStore({ maxBytes: 2_500 });
    const first = store('a', target);
    store('b', target);
    store('c', target); // over: 'a' (oldest live) goes
    expect(target.streamCount).toBe(2);
    expect(replayed(target, first).stream).toBeUndefined();
    expect(() => store('a', target)).toThrow(StreamEvictedError);
    // Forgetting it (the server ended it) clears the mark.
    target.forgetStream('a');
    expect(() => store('a', target)).not.toThrow();
  });

  test('a stream alone over maxBytes keeps its newest event', () => {
    const target = new InMemoryEventStore({ maxBytes: 1_500 });
    const ids = [store('a', target), store('a', target), store('a', target)];
    expect(replayed(target, ids[0]!).ids).toEqual([ids[2]]);
  });

  test('finished streams expire after maxAgeMs; live streams lose their old events', () => {
    let now = 1_000_000;
    const target = new InMemoryEventStore({ maxAgeMs: 60_000, now: () => now });
    const done = store('done', target);
    store('done', target);
    target.finishStream('done');
    const live = store('live', target);
    now += 30_000;
    expect(replayed(target, done).stream).toBe('done');
    store('live', target);
    now += 31_000;
    expect(replayed(target, done).stream).toBeUndefined(); // finished 61 s ago
    const latest = store('live', target); // the first live event (61 s old) goes
    expect(replayed(target, live)).toMatchObject({ stream: 'live', ids: ['live_1', latest] });
    expect(target.streamCount).toBe(1);
  });

  test('maxStreams drops a finished stream before a live one', () => {
    const target = new InMemoryEventStore({ maxStreams: 2 });
    const live = store('live', target);
    const done = store('done', target);
    target.finishStream('done');
    store('new', target);
    expect(replayed(target, done).stream).toBeUndefined();
    expect(replayed(target, live).stream).toBe('live');
  });
});

test('over HTTP: a live stream the store evicted ends with one clear error; resuming it gets 400', async () => {
  const probes = new Probes();
  const handler = createHttpHandler(createTestServer(probes), {
    keepAliveMs: 0,
    // Room for about two short streams: the second one pushes the first out.
    eventStore: new InMemoryEventStore({ maxBytes: 300 }),
  });
  try {
    const sessionId = await initialize(handler);
    const a = new SseReader(await call(handler, callTool(1, 'gated', { key: 'a' }), { sessionId }));
    const primingA = await within(a.next());
    expect(await within(a.nextMessage())).toMatchObject({ params: { data: 'before gate' } });
    const b = new SseReader(await call(handler, callTool(2, 'gated', { key: 'b' }), { sessionId }));
    expect(await within(b.nextMessage())).toMatchObject({ params: { data: 'before gate' } });

    // A's next message meets its evicted stream: its reader gets one error for request 1, then the end.
    probes.for(probes.gates, 'a').resolve();
    expect(await within(a.rest(), 5_000, 'A ends')).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32000,
          message: 'Stream evicted from the event store: the result of this request cannot be delivered',
        },
      },
    ]);
    // That error was request 1's answer: its handler is stopped, not left running for nobody.
    const reasonA = await within(probes.for(probes.aborted, 'a').promise, 5_000, 'A aborted');
    expect(reasonA).toBeInstanceOf(ConnectionClosedError);
    expect((reasonA as Error).cause).toBeInstanceOf(StreamEvictedError);
    const resumed = await call(handler, undefined, {
      sessionId,
      headers: { 'last-event-id': primingA!.id! },
    });
    expect(resumed.status).toBe(400);
    await resumed.body?.cancel();

    // B is untouched.
    probes.for(probes.gates, 'b').resolve();
    const restB = await within(b.rest(), 5_000, 'B ends');
    expect(restB.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 2]);
    expect(probes.aborted.get('b')?.settled).not.toBe(true);
  } finally {
    await handler.close();
  }
});
