/**
 * Scenario 20: in the legacy era a dropped SSE connection is not a cancel. The handler keeps
 * running; GET + Last-Event-ID replays what that stream missed (and nothing of other streams).
 */
import { expect, test } from 'vitest';
import type { JsonRpcMessage } from 'keel-mcp/core';
import { InMemoryEventStore, type EventStore } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { callTool, openSession, ping, post, SseReader, startHarness } from './support/harness.js';

useProcessGuard();

function resume(url: string, sessionId: string, lastEventId: string): Promise<Response> {
  return fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': lastEventId },
  });
}

/** The in-memory store behind promises: exercises the asynchronous store paths. */
class AsyncStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  async storeEvent(streamId: string, message: JsonRpcMessage | undefined): Promise<string> {
    await Promise.resolve();
    return this.inner.storeEvent(streamId, message);
  }
  async replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void,
  ): Promise<string | undefined> {
    await Promise.resolve();
    return this.inner.replayEventsAfter(lastEventId, send);
  }
  async forgetStream(streamId: string): Promise<void> {
    this.inner.forgetStream(streamId);
  }
}

test.each([
  { store: 'in-memory', eventStore: undefined },
  { store: 'asynchronous', eventStore: new AsyncStore() },
])(
  'a dropped POST stream keeps its handler running and is replayed on resume ($store store)',
  async ({ eventStore }) => {
    const h = await startHarness(eventStore ? { eventStore } : {});
    try {
      const sessionId = await openSession(h.url);
      const drop = new AbortController();
      const a = await post(h.url, callTool(1, 'gated', { key: 'a' }), { sessionId, signal: drop.signal });
      const b = await post(h.url, callTool(2, 'gated', { key: 'b' }), { sessionId });
      const streamA = new SseReader(a);
      const streamB = new SseReader(b);

      const priming = await within(streamA.next(), 5_000, 'priming event');
      expect(priming?.data).toBe('');
      expect(priming?.id).toBeTruthy();
      expect(streamA.retry).toBe(1_000);
      const before = await within(streamA.next(), 5_000, 'first event');
      expect(JSON.parse(before!.data)).toMatchObject({ params: { data: 'before gate' } });
      expect((await within(streamB.nextMessage()))?.params).toMatchObject({ data: 'before gate' });

      drop.abort(); // the client's TCP connection goes away mid-call
      await streamA.cancel();
      h.probes.for(h.probes.gates, 'a').resolve();
      await within(h.probes.for(h.probes.finished, 'a').promise, 5_000, 'handler A finishing');
      expect(h.probes.for(h.probes.aborted, 'a').settled).toBe(false);

      const resumed = await resume(h.url, sessionId, before!.id!);
      expect(resumed.status).toBe(200);
      expect(resumed.headers.get('content-type')).toBe('text/event-stream');
      const replayed = await within(new SseReader(resumed).rest(), 5_000, 'replay');
      expect(replayed).toEqual([
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after gate' } },
        { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'gated a done' }] } },
      ]);

      // Stream B was untouched by the replay and still finishes on its own connection.
      h.probes.for(h.probes.gates, 'b').resolve();
      const restB = await within(streamB.rest());
      expect(restB.map((m) => m.id ?? (m.params as { data: string }).data)).toEqual(['after gate', 2]);
      expect(await ping(h.url, sessionId)).toMatchObject({ result: {} });
    } finally {
      await h.close();
    }
  },
);

test('resuming from the priming event continues the live stream on the new connection', async () => {
  const h = await startHarness();
  try {
    const sessionId = await openSession(h.url);
    const drop = new AbortController();
    const a = await post(h.url, callTool(1, 'gated', { key: 'a' }), { sessionId, signal: drop.signal });
    const streamA = new SseReader(a);
    const priming = await within(streamA.next());
    await within(streamA.next());
    drop.abort();
    await streamA.cancel();

    const resumed = new SseReader(await resume(h.url, sessionId, priming!.id!));
    // The event after the priming one is replayed, then the stream continues live.
    expect((await within(resumed.nextMessage()))?.params).toMatchObject({ data: 'before gate' });
    h.probes.for(h.probes.gates, 'a').resolve();
    const rest = await within(resumed.rest());
    expect(rest.map((m) => m.id ?? (m.params as { data: string }).data)).toEqual(['after gate', 1]);
    expect(h.probes.for(h.probes.aborted, 'a').settled).toBe(false);
  } finally {
    await h.close();
  }
});

test('a Last-Event-ID of another session or an unknown one is refused, never replayed', async () => {
  const h = await startHarness();
  try {
    const one = await openSession(h.url);
    const two = await openSession(h.url);
    const response = await post(h.url, callTool(1, 'log-then-echo'), { sessionId: one });
    const events = new SseReader(response);
    const priming = await within(events.next());
    await within(events.rest());

    const foreign = await resume(h.url, two, priming!.id!);
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const unknown = await resume(h.url, one, 'no-such-event');
    expect(unknown.status).toBe(400);
    await unknown.body?.cancel();
    // The owner can still resume its finished stream: the response is replayed, then it ends.
    const own = await within(new SseReader(await resume(h.url, one, priming!.id!)).rest());
    expect(own.at(-1)).toMatchObject({ id: 1, result: {} });
  } finally {
    await h.close();
  }
});

test('without an event store a dropped stream loses the response but aborts nothing', async () => {
  const h = await startHarness({ eventStore: false });
  try {
    const sessionId = await openSession(h.url);
    const drop = new AbortController();
    const a = await post(h.url, callTool(1, 'gated', { key: 'a' }), { sessionId, signal: drop.signal });
    const streamA = new SseReader(a);
    const first = await within(streamA.next());
    expect(first?.id).toBeUndefined(); // no store: no event ids, no priming
    drop.abort();
    await streamA.cancel();
    h.probes.for(h.probes.gates, 'a').resolve();
    await within(h.probes.for(h.probes.finished, 'a').promise);
    expect(h.probes.for(h.probes.aborted, 'a').settled).toBe(false);
    expect(await ping(h.url, sessionId)).toMatchObject({ result: {} });
  } finally {
    await h.close();
  }
});

test('closeSSEStream ends the connection after the priming event; the result arrives on resume', async () => {
  const { Server } = await import('keel-mcp/server');
  const { serveHttp } = await import('keel-mcp/node');
  const server = new Server({ name: 'reconnect', version: '1' }, { capabilities: { tools: {} } });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    ctx.info?.closeSSEStream?.();
    await gate;
    return { content: [{ type: 'text', text: 'after reconnect' }] };
  });
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0 });
  try {
    const sessionId = await openSession(serving.url);
    const response = await post(serving.url, callTool(5, 'test_reconnection'), {
      sessionId,
      headers: { 'mcp-protocol-version': '2025-03-26' }, // any supported version is accepted
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = new SseReader(response);
    const priming = await within(events.next());
    expect(priming?.data).toBe('');
    expect(await within(events.next())).toBeUndefined(); // closed mid-call
    release();
    const resumed = await within(new SseReader(await resume(serving.url, sessionId, priming!.id!)).rest());
    expect(resumed).toEqual([
      { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'after reconnect' }] } },
    ]);
  } finally {
    await serving.close();
  }
});

test('closeSSEStream right away with an asynchronous store (Redis): the priming event still goes out first', async () => {
  const { Server } = await import('keel-mcp/server');
  const { serveHttp } = await import('keel-mcp/node');
  const server = new Server({ name: 'reconnect', version: '1' }, { capabilities: { tools: {} } });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    ctx.info?.closeSSEStream?.();
    await gate;
    return { content: [{ type: 'text', text: 'after reconnect' }] };
  });
  // The priming event's id comes back a tick later: the close must wait for it, or the client
  // gets an empty stream with nothing to resume from.
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0, eventStore: new AsyncStore() });
  try {
    const sessionId = await openSession(serving.url);
    const response = await post(serving.url, callTool(5, 'test_reconnection'), {
      sessionId,
      headers: { 'mcp-protocol-version': '2025-03-26' }, // any supported version is accepted
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = new SseReader(response);
    const priming = await within(events.next());
    expect(priming?.data).toBe('');
    expect(await within(events.next())).toBeUndefined(); // closed mid-call
    release();
    const resumed = await within(new SseReader(await resume(serving.url, sessionId, priming!.id!)).rest());
    expect(resumed).toEqual([
      { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'after reconnect' }] } },
    ]);
  } finally {
    await serving.close();
  }
});

test('a GET stream whose priming event the store never stores still ends on DELETE (bounded close)', async () => {
  const { Server } = await import('keel-mcp/server');
  const { createHttpHandler } = await import('keel-mcp/http');
  const server = new Server({ name: 'hung-store', version: '1' }, { capabilities: { tools: {} } });
  const inner = new AsyncStore();
  // Every event is stored, except the priming ones (no message): those never settle.
  const store: EventStore = {
    storeEvent: (streamId, message) =>
      message === undefined ? new Promise<string>(() => {}) : inner.storeEvent(streamId, message),
    replayEventsAfter: (lastEventId, send) => inner.replayEventsAfter(lastEventId, send),
  };
  const handler = createHttpHandler(server, { eventStore: store, keepAliveMs: 0, retryMs: 50 });
  const url = 'http://127.0.0.1/mcp';
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  try {
    const init = await handler(
      new Request(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      }),
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const get = await handler(new Request(url, { headers: { accept: 'text/event-stream', ...session } }));
    expect(get.status).toBe(200);
    const deleted = await handler(new Request(url, { method: 'DELETE', headers: session }));
    expect(deleted.status).toBe(200);
    expect(await within(get.text(), 5_000, 'the GET stream ends')).toBe('');
  } finally {
    await handler.close();
  }
});
