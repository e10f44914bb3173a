/**
 * Issue 12: a legacy session's shared record. Created before the session is announced (naming
 * its owner), refreshed without a store round trip per request (and by the sweeper while a stream
 * is open), deleted through the one teardown path; the shared per-client limit; a store that is
 * down gives 503, never a 500 or a hang.
 */
import { afterEach, expect, test } from 'vitest';
import { StoreUnavailableError } from 'keel-mcp/core';
import {
  InMemorySessionStore,
  type SessionCreateResult,
  type SessionRecord,
  type SessionStore,
} from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { SseReader } from '../http-server/support/harness.js';
import {
  callTool,
  initializeRequest,
  openSession,
  request,
  startCluster,
  type Cluster,
  type Node,
} from './support/cluster.js';

useProcessGuard();

/** The in-memory store, counting calls; `down` makes every call fail as a dead backend would. */
class CountingStore implements SessionStore {
  readonly inner = new InMemorySessionStore();
  readonly calls = { create: 0, get: 0, touch: 0, delete: 0, swap: 0 };
  down = false;
  private touched: (() => void) | undefined;

  /** Resolves at the next `touch`. */
  nextTouch(): Promise<void> {
    return new Promise((resolve) => (this.touched = resolve));
  }

  create(
    record: { id: string; clientKey?: string; data?: string },
    options: { ttlMs: number; maxPerClient?: number },
  ): Promise<SessionCreateResult> {
    this.calls.create++;
    return this.check('create') ?? this.inner.create(record, options);
  }
  get(id: string): Promise<SessionRecord | undefined> {
    this.calls.get++;
    return this.check('get') ?? this.inner.get(id);
  }
  touch(id: string, ttlMs: number): Promise<boolean> {
    this.calls.touch++;
    const touched = this.touched;
    this.touched = undefined;
    touched?.();
    return this.check('touch') ?? this.inner.touch(id, ttlMs);
  }
  swap(id: string, expected: string | undefined, data: string): Promise<boolean> {
    this.calls.swap++;
    return this.check('swap') ?? this.inner.swap(id, expected, data);
  }
  delete(id: string): Promise<boolean> {
    this.calls.delete++;
    return this.check('delete') ?? this.inner.delete(id);
  }
  private check(operation: string): Promise<never> | undefined {
    return this.down ? Promise.reject(new StoreUnavailableError('test session store', operation)) : undefined;
  }
}

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

function two(c: Cluster): [Node, Node] {
  return c.nodes as [Node, Node];
}

test('the record names the owner, is not written per request, and is deleted when the session ends', async () => {
  const store = new CountingStore();
  cluster = startCluster(2, { sessions: { idleMs: 60_000 } }, { store });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const record = await store.inner.get(sessionId);
  // Issue 28: with the session's snapshot (written on the handshake's two steps, at most).
  expect(JSON.parse(record!.data!)).toMatchObject({ owner: 'node-1', s: { v: '2025-11-25', n: 1 } });
  const swaps = store.calls.swap;
  expect(swaps).toBeGreaterThanOrEqual(1);
  expect(swaps).toBeLessThanOrEqual(2);
  for (let i = 0; i < 10; i++) {
    expect((await request(i % 2 ? a : b, 'POST', { sessionId, body: callTool(i, 'whoami') })).status).toBe(
      200,
    );
  }
  // Refreshes are throttled (every idleMs / 4 at most); B read the owner once, then from its cache.
  expect(store.calls).toMatchObject({ create: 1, touch: 0, get: 1, swap: swaps });
  expect((await request(b, 'DELETE', { sessionId })).status).toBe(200);
  expect(store.calls.delete).toBe(1);
  expect(await store.inner.get(sessionId)).toBeUndefined();
});

test('the sweeper refreshes the record of a session whose only activity is an open stream', async () => {
  const store = new CountingStore();
  cluster = startCluster(2, { sessions: { idleMs: 400 } }, { store });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const stream = new SseReader(await request(b, 'GET', { sessionId }));
  const touchedBefore = store.calls.touch;
  await within(store.nextTouch(), 5_000, 'record refresh');
  expect(store.calls.touch).toBeGreaterThan(touchedBefore);
  expect(await store.inner.get(sessionId)).toBeDefined();
  await stream.cancel();
});

test('the per-client limit is shared: a client at its limit on one process gets 429 on another', async () => {
  cluster = startCluster(2, { sessions: { clientKey: (client) => client.remoteAddress, maxPerClient: 1 } });
  const [a, b] = two(cluster);
  const extra = { remoteAddress: '10.0.0.9' };
  expect((await request(a, 'POST', { body: initializeRequest(), extra })).status).toBe(200);
  const refused = await request(b, 'POST', { body: initializeRequest(), extra });
  expect(refused.status).toBe(429);
  expect(b.started).toEqual([]);
  // Another client is not affected.
  expect(
    (await request(b, 'POST', { body: initializeRequest(), extra: { remoteAddress: '10.0.0.10' } })).status,
  ).toBe(200);
});

test('session store down: initialize and relayed requests get 503 naming the store; local sessions keep working', async () => {
  const store = new CountingStore();
  const errors: unknown[] = [];
  cluster = startCluster(
    2,
    { logger: { debug() {}, error: (_m: string, e: unknown) => void errors.push(e) } },
    { store },
  );
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  store.down = true;
  const init = await request(a, 'POST', { body: initializeRequest() });
  expect(init.status).toBe(503);
  expect(init.headers.get('retry-after')).toBe('1');
  expect(await init.json()).toEqual({
    jsonrpc: '2.0',
    error: {
      code: -32000,
      message: 'Service unavailable: test session store: create failed (backend unavailable)',
    },
  });
  const relayed = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  expect(relayed.status).toBe(503);
  expect(await relayed.json()).toMatchObject({
    error: { message: expect.stringContaining('test session store: get') },
  });
  expect((await request(a, 'POST', { sessionId, body: callTool(2, 'whoami') })).status).toBe(200);
  expect(a.started).toHaveLength(1);
  expect(errors.every((error) => error instanceof StoreUnavailableError)).toBe(true);

  store.down = false;
  expect((await request(b, 'POST', { sessionId, body: callTool(3, 'whoami') })).status).toBe(200);
  expect((await request(a, 'POST', { body: initializeRequest() })).status).toBe(200);
});

test('a record deleted elsewhere (its owner read as dead there) ends the session on its owner at the next refresh', async () => {
  const store = new CountingStore();
  cluster = startCluster(2, { sessions: { idleMs: 400 } }, { store });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  // As another process does when this one was unseen for the liveness window (it reads itself
  // as gone too: its heartbeat lapsed).
  const alive = a.relay.alive.bind(a.relay);
  a.relay.alive = (nodeId: string) => (nodeId === a.relay.nodeId ? Promise.resolve(false) : alive(nodeId));
  await store.inner.delete(sessionId);
  const touched = store.nextTouch();
  let refreshed = false;
  void touched.then(() => (refreshed = true));
  // Active all along (a ping every 20 ms, idle timeout 400 ms): only the lost record can end it.
  for (let i = 0; i < 200 && !refreshed; i++) {
    const ping = await request(a, 'POST', { sessionId, body: { jsonrpc: '2.0', id: i, method: 'ping' } });
    expect(ping.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await within(touched, 5_000, 'record refresh');
  for (let turn = 0; turn < 100 && a.ended.length === 0; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(a.ended).toEqual([[sessionId, 'expired']]);
  expect(a.sessions.has(sessionId)).toBe(false);
  expect((await request(a, 'POST', { sessionId, body: callTool(1, 'whoami') })).status).toBe(404);
  expect((await request(b, 'POST', { sessionId, body: callTool(2, 'whoami') })).status).toBe(404);
});

test('a record lost while its owner is alive (the store restarted empty) is made again; the session lives on', async () => {
  const store = new CountingStore();
  cluster = startCluster(2, { sessions: { idleMs: 400 } }, { store });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  await store.inner.delete(sessionId); // a non-persistent store restarted, or evicted it
  const touched = store.nextTouch();
  let refreshed = false;
  void touched.then(() => (refreshed = true));
  for (let i = 0; i < 200 && !refreshed; i++) {
    const ping = await request(a, 'POST', { sessionId, body: { jsonrpc: '2.0', id: i, method: 'ping' } });
    expect(ping.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await within(touched, 5_000, 'record refresh');
  for (let turn = 0; turn < 1_000 && (await store.inner.get(sessionId)) === undefined; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Made again with what it said before: the owner and the session's snapshot (issue 28).
  expect(JSON.parse((await store.inner.get(sessionId))!.data!)).toMatchObject({
    owner: a.relay.nodeId,
    s: { v: '2025-11-25', n: 1 },
  });
  expect(a.ended).toEqual([]);
  const relayed = await request(b, 'POST', { sessionId, body: callTool(2, 'whoami') });
  expect(relayed.status).toBe(200);
  expect(await relayed.text()).toContain('node-1');
});
