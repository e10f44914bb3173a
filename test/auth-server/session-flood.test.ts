/**
 * Issue 23 item 5: with `auth` on and default session settings, one authenticated principal
 * cannot fill the session table. Sessions count per principal by default, and the default cap
 * per principal is a tenth of `sessions.max` (100 at the default 10,000): a principal at its
 * cap gets 429 and evicts nobody. Scaled down here: `max: 50`, so 5 sessions per principal.
 */
import { expect, test } from 'vitest';
import type { AuthInfo } from 'keel-mcp/core';
import { createHttpHandler, type HttpHandlerOptions, type SessionEndReason } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';
import { call } from '../http-server/support/direct.js';
import { callTool, createTestServer, initializeRequest, Probes } from '../http-server/support/harness.js';
import { staticAuth, tok } from './support.js';

useProcessGuard();

type Handler = ReturnType<typeof createHttpHandler>;

function setup(sessions: HttpHandlerOptions['sessions']) {
  const ends: { id: string; reason: SessionEndReason }[] = [];
  const handler = createHttpHandler(createTestServer(new Probes()), {
    keepAliveMs: 0,
    auth: staticAuth(),
    sessions,
    onSessionEnd: (id, reason) => ends.push({ id, reason }),
  });
  return { handler, ends };
}

const as = (subject: string) => ({ headers: { authorization: `Bearer ${tok(subject)}` } });

/** `initialize` by `subject`: the status, and the session id when one was made. */
async function initialize(handler: Handler, subject: string) {
  const response = await call(handler, initializeRequest(), as(subject));
  await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    sessionId: response.headers.get('mcp-session-id'),
  };
}

async function status(
  handler: Handler,
  subject: string,
  sessionId: string,
  body: object = { jsonrpc: '2.0', id: 'p', method: 'ping' },
) {
  const response = await call(handler, body, { sessionId, ...as(subject) });
  await response.text();
  return response.status;
}

/** Bob tries 60 sessions (more than the table holds); `work`: one call in each he gets. */
async function flood(handler: Handler, work: boolean): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 60; i++) {
    const opened = await initialize(handler, 'bob');
    statuses.push(opened.status);
    if (opened.status === 429) expect(opened.retryAfter).toBe('60');
    if (work && opened.sessionId) {
      const notified = { jsonrpc: '2.0', method: 'notifications/initialized' };
      expect(await status(handler, 'bob', opened.sessionId, notified)).toBe(202);
      expect(await status(handler, 'bob', opened.sessionId, callTool(1, 'echo', { text: 'x' }))).toBe(200);
    }
  }
  return statuses;
}

test("issue 23 item 5: one principal's flood of handshake-only sessions does not evict another principal's idle session", async () => {
  const { handler, ends } = setup({ max: 50 });
  try {
    const alice = await initialize(handler, 'alice'); // handshake-only and idle: the first to go if anything went
    expect(alice.status).toBe(200);
    const statuses = await flood(handler, false);
    expect(ends).toEqual([]);
    expect(await status(handler, 'alice', alice.sessionId!)).toBe(200);
    expect((await initialize(handler, 'alice')).status).toBe(200);
    // Bob got his 5, then 429: nobody was evicted for him.
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    expect(handler.sessionCount).toBe(7);
  } finally {
    await handler.close();
  }
});

test('issue 23 item 5: one principal with a call in each of its sessions cannot lock out new sessions (no 503)', async () => {
  const { handler, ends } = setup({ max: 50 });
  try {
    const statuses = await flood(handler, true);
    const others: number[] = [];
    for (const subject of ['alice', 'carol', 'dave'])
      others.push((await initialize(handler, subject)).status);
    expect(others).toEqual([200, 200, 200]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(ends).toEqual([]);
  } finally {
    await handler.close();
  }
});

test('the default cap is 100 per principal with the default table size', async () => {
  const { handler } = setup({});
  try {
    for (let i = 0; i < 100; i++) expect((await initialize(handler, 'bob')).status).toBe(200);
    expect((await initialize(handler, 'bob')).status).toBe(429);
    expect((await initialize(handler, 'alice')).status).toBe(200);
  } finally {
    await handler.close();
  }
});

test('explicit clientKey and maxPerClient still win with auth on', async () => {
  const shared = setup({ max: 50, clientKey: () => 'everyone', maxPerClient: 2 });
  try {
    expect((await initialize(shared.handler, 'alice')).status).toBe(200);
    expect((await initialize(shared.handler, 'bob')).status).toBe(200);
    expect((await initialize(shared.handler, 'carol')).status).toBe(429);
  } finally {
    await shared.handler.close();
  }
  const bySubject = setup({
    clientKey: (client) => (client.authInfo as AuthInfo | undefined)?.subject,
    maxPerClient: 1,
  });
  try {
    expect((await initialize(bySubject.handler, 'alice')).status).toBe(200);
    expect((await initialize(bySubject.handler, 'alice')).status).toBe(429);
    expect((await initialize(bySubject.handler, 'bob')).status).toBe(200);
  } finally {
    await bySubject.handler.close();
  }
  // An explicit cap with the default (principal) key.
  const capped = setup({ maxPerClient: 2 });
  try {
    expect((await initialize(capped.handler, 'bob')).status).toBe(200);
    expect((await initialize(capped.handler, 'bob')).status).toBe(200);
    expect((await initialize(capped.handler, 'bob')).status).toBe(429);
    expect((await initialize(capped.handler, 'alice')).status).toBe(200);
  } finally {
    await capped.handler.close();
  }
});

test('without auth there is still no per-client limit by default (a flood evicts only idle sessions)', async () => {
  const handler = createHttpHandler(createTestServer(new Probes()), { keepAliveMs: 0, sessions: { max: 5 } });
  try {
    for (let i = 0; i < 8; i++) {
      const response = await call(handler, initializeRequest());
      await response.text();
      expect(response.status).toBe(200);
    }
    expect(handler.sessionCount).toBe(5);
  } finally {
    await handler.close();
  }
});
