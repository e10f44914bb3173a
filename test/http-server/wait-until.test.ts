/**
 * Issue 13 (Workers): the web handler's second argument may carry a `waitUntil` (a Cloudflare
 * Workers `ExecutionContext` as it is). Every piece of work the handler detaches from the Response
 * it returns is handed to it, and awaiting what was handed over means that work is done. One case
 * per detaching path, each with an exact count of registered promises; called directly with web
 * `Request`s, as a Worker calls it.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import {
  createHttpHandler,
  InMemoryEventStore,
  InMemorySessionStore,
  MemoryRelayHub,
  type EventStore,
  type HttpHandler,
  type HttpHandlerOptions,
  type WaitUntilContext,
} from 'keel-mcp/http';
import { backgroundOf } from '../../src/transports/http/server-wire/background.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, initializeRequest, JSON_AND_SSE, type Deferred } from './support/harness.js';

useProcessGuard();

const URL_ = 'http://127.0.0.1/mcp';
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';

/** Like a Workers ExecutionContext: `waitUntil` lives on the prototype and needs its `this`. */
class FakeExecutionContext {
  readonly promises: Promise<unknown>[] = [];
  readonly props = {};
  waitUntil(promise: Promise<unknown>): void {
    this.promises.push(promise);
  }
  passThroughOnException(): void {}
  /** Await everything handed over (bounded). */
  drain(): Promise<unknown> {
    return within(Promise.all(this.promises), 5_000, 'the waitUntil promises');
  }
}

interface Setup {
  handler: HttpHandler;
  /** `notifications/roots/list_changed` handled (count). */
  notified: { count: number };
  /** The `hold` tool: started, may finish, saw its signal abort, returned. */
  started: Deferred<void>;
  gate: Deferred<void>;
  aborted: Deferred<void>;
  finished: { value: boolean };
}

let current: HttpHandler | undefined;
afterEach(async () => {
  await current?.close({ deadlineMs: 2_000 });
  current = undefined;
});

function setup(options: HttpHandlerOptions = {}): Setup {
  const notified = { count: 0 };
  const finished = { value: false };
  const [started, gate, aborted] = [deferred<void>(), deferred<void>(), deferred<void>()];
  const server = new McpServer({ name: 'wait-until', version: '1' }, { onerror: undefined });
  server.server.setNotificationHandler('notifications/roots/list_changed', () => void notified.count++);
  server.tool('echo', { description: 'Echoes' }, () => 'echo');
  server.tool('hold', { description: 'Runs until its gate opens or it is aborted' }, async (_args, ctx) => {
    ctx.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
    await ctx.progress(0, 1, 'holding'); // the response becomes a stream now
    started.resolve();
    await Promise.race([gate.promise, aborted.promise]);
    finished.value = true;
    return 'held';
  });
  const handler = createHttpHandler(server, { keepAliveMs: 0, ...options });
  current = handler;
  return { handler, notified, started, gate, aborted, finished };
}

function request(body: JsonObject, headers: Record<string, string> = {}, signal?: AbortSignal): Request {
  return new Request(URL_, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
    body: JSON.stringify(body),
    signal: signal ?? null,
  });
}

const listChanged = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };
const call = (id: number, name: string): JsonObject => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  // A progress token: `hold` reports progress, which turns its response into a stream.
  params: { name, arguments: {}, _meta: { progressToken: `p${id}` } },
});

function modern(id: number, name: string): [JsonObject, Record<string, string>] {
  const body = call(id, name);
  (body.params as JsonObject)._meta = {
    progressToken: `p${id}`,
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return [body, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name }];
}

async function openSession(handler: HttpHandler): Promise<string> {
  const response = await handler(request(initializeRequest()));
  await response.body?.cancel();
  const sessionId = response.headers.get('mcp-session-id')!;
  const ack = await handler(
    request({ jsonrpc: '2.0', method: 'notifications/initialized' }, session(sessionId)),
  );
  expect(ack.status).toBe(202);
  return sessionId;
}

const session = (sessionId: string): Record<string, string> => ({
  'mcp-session-id': sessionId,
  'mcp-protocol-version': LEGACY,
});

describe('stateless (sessions: false)', () => {
  test('a notification answered 202: its handler has run and the connection is gone', async () => {
    const s = setup({ sessions: false });
    const ctx = new FakeExecutionContext();
    const response = await s.handler(request(listChanged, { 'mcp-protocol-version': LEGACY }), ctx);
    expect(response.status).toBe(202);
    expect(ctx.promises).toHaveLength(1);
    await ctx.drain();
    expect(s.notified.count).toBe(1);
    expect(s.handler.sessionCount).toBe(0);
  });

  test('a request answered with JSON: the connection is gone once the promise settles', async () => {
    const s = setup({ sessions: false });
    const ctx = new FakeExecutionContext();
    const response = await s.handler(request(call(1, 'echo'), { 'mcp-protocol-version': LEGACY }), ctx);
    expect(((await response.json()) as JsonObject).result).toBeDefined();
    expect(ctx.promises).toHaveLength(1);
    await ctx.drain();
    expect(s.handler.sessionCount).toBe(0);
  });
});

describe('2026-07-28 requests', () => {
  test('answered: the request connection is gone once the promise settles', async () => {
    const s = setup();
    const ctx = new FakeExecutionContext();
    const [body, headers] = modern(1, 'echo');
    const response = await s.handler(request(body, headers), ctx);
    expect(((await response.json()) as JsonObject).result).toBeDefined();
    expect(ctx.promises).toHaveLength(1);
    await ctx.drain();
    expect(s.handler.sessionCount).toBe(0);
  });

  test('the client left mid-stream: the handler aborts and the connection ends before the promise settles', async () => {
    const s = setup();
    const ctx = new FakeExecutionContext();
    const controller = new AbortController();
    const [body, headers] = modern(2, 'hold');
    const response = await s.handler(request(body, headers, controller.signal), ctx);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await within(s.started.promise, 5_000, 'hold started');
    expect(ctx.promises).toHaveLength(1);
    controller.abort();
    await ctx.drain();
    expect(s.aborted.settled).toBe(true);
    expect(s.finished.value).toBe(true);
    expect(s.handler.sessionCount).toBe(0);
  });
});

describe('legacy sessions', () => {
  test("a notification answered 202: the session's engine has run its handler", async () => {
    const s = setup();
    const sessionId = await openSession(s.handler);
    const ctx = new FakeExecutionContext();
    const response = await s.handler(request(listChanged, session(sessionId)), ctx);
    expect(response.status).toBe(202);
    expect(ctx.promises).toHaveLength(1);
    await ctx.drain();
    expect(s.notified.count).toBe(1);
  });

  test('a request whose SSE connection closed: the promise settles once its handler has returned', async () => {
    const s = setup();
    const sessionId = await openSession(s.handler);
    const ctx = new FakeExecutionContext();
    const response = await s.handler(request(call(3, 'hold'), session(sessionId)), ctx);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await within(s.started.promise, 5_000, 'hold started');
    expect(ctx.promises).toHaveLength(1);
    let settled = false;
    void ctx.promises[0]!.then(() => (settled = true));
    await response.body?.cancel(); // the client left; a legacy handler runs on (it may resume)
    expect(settled).toBe(false);
    s.gate.resolve();
    await ctx.drain();
    expect(s.finished.value).toBe(true);
    expect(s.aborted.settled).toBe(false);
  });

  test('DELETE with a backplane: the shared record is deleted once the promise settles', async () => {
    const release = deferred<void>();
    class SlowStore extends InMemorySessionStore {
      override async delete(id: string): Promise<boolean> {
        await release.promise;
        return super.delete(id);
      }
    }
    const sessions = new SlowStore();
    const s = setup({ backplane: { relay: new MemoryRelayHub().node('solo'), sessions } });
    const sessionId = await openSession(s.handler);
    const ctx = new FakeExecutionContext();
    const deleted = await s.handler(
      new Request(URL_, { method: 'DELETE', headers: session(sessionId) }),
      ctx,
    );
    expect(deleted.status).toBe(200);
    // The session's end (it follows the reply) and the shared record's delete.
    expect(ctx.promises).toHaveLength(2);
    let drained = false;
    const draining = ctx.drain().then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    expect(await sessions.get(sessionId)).toBeDefined(); // the delete waits for `release`
    release.resolve();
    await draining;
    expect(await sessions.get(sessionId)).toBeUndefined();
  });

  test('DELETE with an asynchronous event store: its streams are dropped once the promise settles', async () => {
    const release = deferred<void>();
    const forgotten: string[] = [];
    const memory = new InMemoryEventStore();
    const slowStore: EventStore = {
      storeEvent: (streamId, message, data) => memory.storeEvent(streamId, message, data),
      replayEventsAfter: (lastEventId, send) => memory.replayEventsAfter(lastEventId, send),
      finishStream: (streamId) => memory.finishStream(streamId),
      forgetStream: async (streamId) => {
        await release.promise;
        memory.forgetStream(streamId);
        forgotten.push(streamId);
      },
    };
    // Eager SSE: the answer goes on a resumable stream, kept for resumption once finished.
    const s = setup({ eventStore: slowStore, postResponse: 'sse' });
    const sessionId = await openSession(s.handler);
    const answered = await s.handler(request(call(4, 'echo'), session(sessionId)));
    expect(await answered.text()).toContain('"result"');
    const ctx = new FakeExecutionContext();
    const deleted = await s.handler(
      new Request(URL_, { method: 'DELETE', headers: session(sessionId) }),
      ctx,
    );
    expect(deleted.status).toBe(200);
    expect(ctx.promises).toHaveLength(1);
    // Every microtask has run by the next event-loop turn: a promise that did not wait for the
    // store would have settled by then.
    let drained = false;
    const draining = ctx.drain().then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect([drained, forgotten]).toEqual([false, []]);
    release.resolve();
    await draining;
    // The session's first request stream (its id also names the request, issue 28).
    expect(forgotten).toEqual([expect.stringMatching(new RegExp(`^${sessionId}:1~`))]);
  });
});

describe('the hook itself', () => {
  test('without waitUntil nothing is registered and nothing changes', async () => {
    const s = setup({ sessions: false });
    const plain = { authInfo: { who: 'me' } } satisfies WaitUntilContext & { authInfo: unknown };
    const response = await s.handler(request(call(1, 'echo'), { 'mcp-protocol-version': LEGACY }), plain);
    expect(((await response.json()) as JsonObject).result).toBeDefined();
    expect(backgroundOf(undefined)).toBeUndefined();
    expect(backgroundOf({})).toBeUndefined();
  });

  test('a detached promise that rejects reaches waitUntil settled, never rejected', async () => {
    const ctx = new FakeExecutionContext();
    const detach = backgroundOf(ctx)!;
    detach(Promise.reject(new Error('store down')));
    detach(undefined);
    expect(ctx.promises).toHaveLength(1);
    await expect(ctx.promises[0]).resolves.toBeUndefined();
  });

  test('a host whose waitUntil throws: every request is still answered, and the work still runs', async () => {
    const s = setup({ sessions: false });
    let refused = 0;
    // Workers throws from waitUntil once the request's context has ended.
    const ctx = {
      waitUntil(): void {
        refused++;
        throw new Error('waitUntil() called after the response was sent');
      },
    };
    const notification = await s.handler(request(listChanged, { 'mcp-protocol-version': LEGACY }), ctx);
    expect(notification.status).toBe(202);
    const response = await s.handler(request(call(2, 'echo'), { 'mcp-protocol-version': LEGACY }), ctx);
    expect(((await response.json()) as JsonObject).result).toEqual({
      content: [{ type: 'text', text: 'echo' }],
    });
    expect(refused).toBeGreaterThanOrEqual(2);
    await within(
      (async () => {
        while (s.notified.count === 0 || s.handler.sessionCount !== 0)
          await new Promise((r) => setImmediate(r));
      })(),
      5_000,
      'the detached work',
    );
    expect(s.notified.count).toBe(1);
  });
});
