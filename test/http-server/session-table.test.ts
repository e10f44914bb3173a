/**
 * The session table: idle expiry, LRU eviction, 503 when full, the one cleanup path, stateless
 * mode, and failed handshakes leaving nothing behind.
 */
import { expect, test } from 'vitest';
import { createHttpHandler, type SessionEndReason } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { call, initialize, until } from './support/direct.js';
import { callTool, createTestServer, deferred, Probes, SseReader } from './support/harness.js';

useProcessGuard();

function setup(options: Parameters<typeof createHttpHandler>[1] = {}) {
  const probes = new Probes();
  const server = createTestServer(probes);
  const ends: { id: string; reason: SessionEndReason }[] = [];
  const ended = new Map<string, ReturnType<typeof deferred<SessionEndReason>>>();
  const endOf = (id: string) => {
    let entry = ended.get(id);
    if (!entry) ended.set(id, (entry = deferred<SessionEndReason>()));
    return entry;
  };
  const handler = createHttpHandler(server, {
    keepAliveMs: 0,
    ...options,
    onSessionEnd: (id, reason) => {
      ends.push({ id, reason });
      endOf(id).resolve(reason);
    },
  });
  return { handler, server, probes, ends, endOf };
}

test('an idle session expires through the cleanup path and then answers 404', async () => {
  const { handler, server, endOf } = setup({ sessions: { idleMs: 30 } });
  try {
    const sessionId = await initialize(handler);
    expect(await within(endOf(sessionId).promise, 5_000, 'expiry')).toBe('expired');
    expect(handler.sessionCount).toBe(0);
    await until(() => server.sessions.size === 0, 5_000, 'engine session gone');
    const late = await call(handler, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId });
    expect(late.status).toBe(404);
  } finally {
    await handler.close();
  }
});

test('a session with an open stream does not expire; it does once the stream ends', async () => {
  const { handler, endOf, ends } = setup({ sessions: { idleMs: 30 } });
  try {
    const sessionId = await initialize(handler);
    const get = await call(handler, undefined, { sessionId });
    const stream = new SseReader(get);
    await within(stream.next()); // priming
    // A witness session, last active after the streaming one: the sweep that expires it has
    // passed over the streaming session too (one sweep ends every session it finds idle).
    const witness = await initialize(handler);
    expect(await within(endOf(witness).promise, 5_000, 'witness expiry')).toBe('expired');
    expect(ends).toEqual([{ id: witness, reason: 'expired' }]);
    await stream.cancel();
    expect(await within(endOf(sessionId).promise, 5_000, 'expiry after the stream ended')).toBe('expired');
  } finally {
    await handler.close();
  }
});

test('a blocked handler of an expired session is aborted (expiry = the same cleanup as DELETE)', async () => {
  const { handler, probes, endOf } = setup({ sessions: { idleMs: 30 } });
  try {
    const sessionId = await initialize(handler);
    const client = new AbortController();
    const response = await call(handler, callTool(1, 'block', { key: 'x' }), {
      sessionId,
      signal: client.signal,
    });
    const stream = new SseReader(response);
    await within(stream.nextMessage());
    client.abort(); // the client vanished; the handler is still blocked
    await stream.cancel();
    expect(await within(endOf(sessionId).promise)).toBe('expired');
    expect(String(await within(probes.for(probes.aborted, 'x').promise))).toContain('Connection closed');
  } finally {
    await handler.close();
  }
});

test('when full, the least recently used idle session is evicted', async () => {
  const { handler, endOf } = setup({ sessions: { max: 2 } });
  try {
    const first = await initialize(handler);
    const second = await initialize(handler);
    // Use the first, so the second becomes the least recently used.
    expect(
      (await call(handler, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId: first })).status,
    ).toBe(200);
    const third = await initialize(handler);
    expect(await within(endOf(second).promise)).toBe('evicted');
    expect(handler.sessionCount).toBe(2);
    expect(
      (await call(handler, { jsonrpc: '2.0', id: 2, method: 'ping' }, { sessionId: second })).status,
    ).toBe(404);
    expect(
      (await call(handler, { jsonrpc: '2.0', id: 3, method: 'ping' }, { sessionId: third })).status,
    ).toBe(200);
  } finally {
    await handler.close();
  }
});

test('when full and every session has an open exchange, initialize gets 503', async () => {
  const { handler } = setup({ sessions: { max: 1 } });
  try {
    const only = await initialize(handler);
    const stream = new SseReader(await call(handler, undefined, { sessionId: only }));
    const refused = await call(handler, callTool(0, 'x'));
    expect(refused.status).toBe(400); // not initialize: needs a session id
    await refused.body?.cancel();
    const full = await call(handler, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(full.status).toBe(503);
    expect(((await full.json()) as { error: { code: number } }).error.code).toBe(-32000);
    await stream.cancel();
    expect(handler.sessionCount).toBe(1);
  } finally {
    await handler.close();
  }
});

test('a failed initialize leaves no session behind and announces no id', async () => {
  const { handler, server } = setup();
  try {
    const response = await call(handler, { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32602);
    await until(() => handler.sessionCount === 0 && server.sessions.size === 0, 5_000, 'session gone');
  } finally {
    await handler.close();
  }
});

test('session ids are unguessable UUIDs, distinct per session', async () => {
  const { handler } = setup();
  try {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(await initialize(handler));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  } finally {
    await handler.close();
  }
});

test('stateless mode: no session header, a fresh connection per POST, GET/DELETE → 405', async () => {
  const { handler, server } = setup({ sessions: false });
  try {
    const init = await call(handler, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(
      '2025-11-25',
    );
    const echo = await call(handler, callTool(1, 'echo', { text: 'hi' }));
    expect(await echo.json()).toMatchObject({ id: 1, result: { content: [{ text: 'echo hi' }] } });
    const logged = new SseReader(await call(handler, callTool(2, 'log-then-echo')));
    const events = await within(logged.rest());
    expect(events.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 2]);
    expect((await call(handler, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const get = await call(handler, undefined);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await get.body?.cancel();
    const del = await call(handler, undefined, { method: 'DELETE', sessionId: 'x' });
    expect(del.status).toBe(405);
    await del.body?.cancel();
    await until(() => handler.sessionCount === 0 && server.sessions.size === 0, 5_000, 'stateless close');
  } finally {
    await handler.close();
  }
});

test('stateless: a client that leaves takes its request with it (nobody could resume)', async () => {
  const { handler, probes } = setup({ sessions: false });
  try {
    const client = new AbortController();
    const stream = new SseReader(
      await call(handler, callTool(1, 'block', { key: 's' }), { signal: client.signal }),
    );
    await within(stream.nextMessage());
    client.abort();
    await stream.cancel();
    expect(String(await within(probes.for(probes.aborted, 's').promise))).toContain('Connection closed');
  } finally {
    await handler.close();
  }
});
