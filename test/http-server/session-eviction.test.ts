/**
 * Issue 9 item 7: eviction is not a denial of service. A full table evicts handshake-only
 * sessions first, never a session in use, and not one that did work recently (503 with
 * Retry-After instead); a host-supplied client key caps sessions per client (429).
 */
import { expect, test } from 'vitest';
import { createHttpHandler, type SessionEndReason } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { call, initialize } from './support/direct.js';
import {
  callTool,
  createTestServer,
  initializeRequest,
  openSession,
  Probes,
  SseReader,
  startHarness,
} from './support/harness.js';

useProcessGuard();

function setup(options: Parameters<typeof createHttpHandler>[1] = {}) {
  const probes = new Probes();
  const server = createTestServer(probes);
  const ends: { id: string; reason: SessionEndReason }[] = [];
  const handler = createHttpHandler(server, {
    keepAliveMs: 0,
    ...options,
    onSessionEnd: (id, reason) => ends.push({ id, reason }),
  });
  return { handler, probes, ends };
}

type Handler = ReturnType<typeof createHttpHandler>;

async function initialized(handler: Handler, sessionId: string): Promise<void> {
  const ack = await call(handler, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId });
  expect(ack.status).toBe(202);
}

/** A session that finished the handshake and made one call. */
async function workingSession(handler: Handler): Promise<string> {
  const sessionId = await initialize(handler);
  await initialized(handler, sessionId);
  const echo = await call(handler, callTool(1, 'echo', { text: 'hi' }), { sessionId });
  expect(await echo.json()).toMatchObject({ id: 1, result: { content: [{ text: 'echo hi' }] } });
  return sessionId;
}

async function pingStatus(handler: Handler, sessionId: string): Promise<number> {
  const response = await call(handler, { jsonrpc: '2.0', id: 'p', method: 'ping' }, { sessionId });
  await response.body?.cancel();
  return response.status;
}

test('a flood of handshake-only sessions evicts only itself, never a session that made calls', async () => {
  const { handler, ends } = setup({ sessions: { max: 20 } });
  try {
    const legit = await workingSession(handler);
    const flood: string[] = [];
    for (let i = 0; i < 100; i++) {
      const id = await initialize(handler);
      if (i % 2 === 0) await initialized(handler, id); // half complete the handshake, half do not
      flood.push(id);
    }
    // 1 + 100 sessions through a table of 20: exactly 81 evictions, all of them flood sessions.
    expect(ends.filter((end) => end.reason === 'evicted')).toHaveLength(81);
    expect(ends.map((end) => end.id)).not.toContain(legit);
    expect(handler.sessionCount).toBe(20);
    expect(await pingStatus(handler, legit)).toBe(200);
  } finally {
    await handler.close();
  }
});

test('sessions that never finished the handshake go before those that did', async () => {
  const { handler, ends } = setup({ sessions: { max: 3 } });
  try {
    const working = await workingSession(handler);
    const ready = await initialize(handler);
    await initialized(handler, ready);
    const opening = await initialize(handler);
    const next = await initialize(handler);
    expect(ends).toEqual([{ id: opening, reason: 'evicted' }]);
    await initialize(handler);
    expect(ends).toEqual([
      { id: opening, reason: 'evicted' },
      { id: next, reason: 'evicted' },
    ]);
    expect(await pingStatus(handler, ready)).toBe(200);
    expect(await pingStatus(handler, working)).toBe(200);
  } finally {
    await handler.close();
  }
});

test('a session in use (open stream or running handler) is never evicted: 503 with Retry-After', async () => {
  // recentWorkMs 0: only being in use protects these sessions.
  const { handler, probes, ends } = setup({ sessions: { max: 2, recentWorkMs: 0 } });
  try {
    const streaming = await workingSession(handler);
    const get = new SseReader(await call(handler, undefined, { sessionId: streaming }));
    await within(get.next()); // priming: the GET stream is open
    const running = await workingSession(handler);
    const client = new AbortController();
    const blocked = new SseReader(
      await call(handler, callTool(2, 'block', { key: 'b' }), { sessionId: running, signal: client.signal }),
    );
    await within(probes.for(probes.started, 'b').promise);
    // The client drops its POST stream; the handler runs on (legacy HTTP: not a cancel).
    client.abort();
    await blocked.cancel();
    const refused = await call(handler, initializeRequest());
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32000);
    expect(ends).toEqual([]);
    expect(probes.aborted.has('b')).toBe(false);
    await get.cancel();
  } finally {
    await handler.close();
  }
});

test('a session that did work recently is not evicted; past recentWorkMs it may be', async () => {
  const protectedTable = setup({ sessions: { max: 1 } });
  try {
    await workingSession(protectedTable.handler);
    const refused = await call(protectedTable.handler, initializeRequest());
    expect(refused.status).toBe(503);
    await refused.body?.cancel();
    expect(protectedTable.ends).toEqual([]);
  } finally {
    await protectedTable.handler.close();
  }
  const unprotected = setup({ sessions: { max: 1, recentWorkMs: 0 } });
  try {
    const old = await workingSession(unprotected.handler);
    const fresh = await call(unprotected.handler, initializeRequest());
    expect(fresh.status).toBe(200);
    await fresh.body?.cancel();
    expect(unprotected.ends).toEqual([{ id: old, reason: 'evicted' }]);
  } finally {
    await unprotected.handler.close();
  }
});

test('a client over its session limit gets 429 with Retry-After; ending one frees a place', async () => {
  const { handler, ends } = setup({
    sessions: { clientKey: (client) => client.headers.get('x-client') ?? undefined, maxPerClient: 2 },
  });
  const as = (client: string) => ({ headers: { 'x-client': client } });
  try {
    const first = await call(handler, initializeRequest(), as('a'));
    const firstId = first.headers.get('mcp-session-id')!;
    await first.body?.cancel();
    expect((await call(handler, initializeRequest(), as('a'))).status).toBe(200);
    const over = await call(handler, initializeRequest(), as('a'));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    expect(((await over.json()) as { error: { code: number } }).error.code).toBe(-32000);
    expect(over.headers.get('mcp-session-id')).toBeNull();
    // Other clients, and requests without a key, are not affected.
    expect((await call(handler, initializeRequest(), as('b'))).status).toBe(200);
    expect((await call(handler, initializeRequest())).status).toBe(200);
    expect(handler.sessionCount).toBe(4);
    expect(ends).toEqual([]);
    const deleted = await call(handler, undefined, { method: 'DELETE', sessionId: firstId });
    expect(deleted.status).toBe(200);
    expect((await call(handler, initializeRequest(), as('a'))).status).toBe(200);
  } finally {
    await handler.close();
  }
});

test('over real HTTP the Node adapter supplies the remote address as a client key', async () => {
  const seen: (string | undefined)[] = [];
  const harness = await startHarness({
    sessions: {
      clientKey: (client) => {
        seen.push(client.remoteAddress);
        return client.remoteAddress;
      },
      maxPerClient: 1,
    },
  });
  try {
    await openSession(harness.url);
    const over = await fetch(harness.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initializeRequest()),
    });
    expect(over.status).toBe(429);
    await over.body?.cancel();
    expect(seen).toEqual(['127.0.0.1', '127.0.0.1']);
  } finally {
    await harness.close();
  }
});
