/**
 * Issue 23 item 6: a request for a session that belongs to another principal is answered 404 and
 * leaves the session exactly as it was: it does not extend its idle life and does not move it in
 * the eviction order. Only a request the session's owner sends marks it as used.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { createHttpHandler, type SessionEndReason } from 'keel-mcp/http';
import { staticAuth, tok } from '../auth-server/support.js';
import { useProcessGuard } from '../helpers/guard.js';
import { call } from './support/direct.js';
import { createTestServer, initializeRequest, Probes } from './support/harness.js';

useProcessGuard();

afterEach(() => {
  vi.useRealTimers();
});

function setup(sessions: { idleMs?: number; max?: number }) {
  const ends: { id: string; reason: SessionEndReason }[] = [];
  const handler = createHttpHandler(createTestServer(new Probes()), {
    keepAliveMs: 0,
    auth: staticAuth(),
    sessions,
    onSessionEnd: (id, reason) => ends.push({ id, reason }),
  });
  return { handler, ends };
}

type Handler = ReturnType<typeof createHttpHandler>;
const bearer = (subject: string) => ({ authorization: `Bearer ${tok(subject)}` });

/** An `initialize` by `subject`; returns the new session's id. */
async function open(handler: Handler, subject: string): Promise<string> {
  const response = await call(handler, initializeRequest(), { headers: bearer(subject) });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('mcp-session-id')!;
}

/** POST, GET and DELETE by `subject` naming `sessionId`: all must be 404. */
async function foreignRequests(handler: Handler, subject: string, sessionId: string): Promise<void> {
  const headers = bearer(subject);
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
  for (const response of [
    await call(handler, ping, { sessionId, headers }),
    await call(handler, notification, { sessionId, headers }),
    await call(handler, undefined, { sessionId, headers }),
    await call(handler, undefined, { sessionId, headers, method: 'DELETE' }),
  ]) {
    expect(response.status).toBe(404);
    await response.text();
  }
}

test("issue 23 item 6: another principal's 404s do not extend a session's idle life", async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  // Sweeps every idleMs / 2: at 30 s, 60 s, 90 s, ...
  const { handler, ends } = setup({ idleMs: 60_000 });
  try {
    const alice = await open(handler, 'alice');
    await vi.advanceTimersByTimeAsync(40_000);
    await foreignRequests(handler, 'bob', alice);
    expect(ends).toEqual([]);
    // Idle since 0 s: the 60 s sweep ends it. Had Bob's requests counted, it would live to 120 s.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(ends).toEqual([{ id: alice, reason: 'expired' }]);
    expect(handler.sessionCount).toBe(0);
  } finally {
    await handler.close();
  }
});

test("issue 23 item 6: another principal's 404s do not move a session in the eviction order", async () => {
  const { handler, ends } = setup({ max: 2 });
  try {
    const alice = await open(handler, 'alice');
    const bob = await open(handler, 'bob');
    // Alice's session is the least recently used; Bob's requests naming it must leave it so.
    await foreignRequests(handler, 'bob', alice);
    await open(handler, 'carol');
    expect(ends).toEqual([{ id: alice, reason: 'evicted' }]);
    // Bob's own session was not touched by the eviction.
    const ping = await call(
      handler,
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { sessionId: bob, headers: bearer('bob') },
    );
    expect(ping.status).toBe(200);
    await ping.text();
  } finally {
    await handler.close();
  }
});

test("a session's own principal does keep it alive (the same requests, by its owner)", async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const { handler, ends } = setup({ idleMs: 60_000 });
  try {
    const alice = await open(handler, 'alice');
    await vi.advanceTimersByTimeAsync(40_000);
    const ping = await call(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { sessionId: alice, headers: bearer('alice') },
    );
    expect(ping.status).toBe(200);
    await ping.text();
    await vi.advanceTimersByTimeAsync(50_000); // 90 s: last activity at 40 s, not idle for 60 s yet
    expect(ends).toEqual([]);
    await vi.advanceTimersByTimeAsync(30_000); // 120 s sweep
    expect(ends).toEqual([{ id: alice, reason: 'expired' }]);
  } finally {
    await handler.close();
  }
});
