/**
 * Where each server message goes: its request's POST stream, the standalone GET stream, or
 * nowhere (and what happens then); JSON vs SSE answers; cancels; keep-alives.
 */
import { expect, test } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { createHttpHandler } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { call, initialize } from './support/direct.js';
import { callTool, createTestServer, Probes, SseReader } from './support/harness.js';

useProcessGuard();

function setup(options: Parameters<typeof createHttpHandler>[1] = {}) {
  const probes = new Probes();
  const server = createTestServer(probes);
  const handler = createHttpHandler(server, { keepAliveMs: 0, ...options });
  return { handler, server, probes };
}

test('a result with nothing before it is JSON; related messages turn the answer into SSE', async () => {
  const { handler } = setup();
  try {
    const sessionId = await initialize(handler);
    const json = await call(handler, callTool(1, 'echo', { text: 'a' }), { sessionId });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(json.headers.get('mcp-session-id')).toBe(sessionId);
    expect(await json.json()).toMatchObject({ id: 1, result: {} });
    const sse = await call(handler, callTool(2, 'log-then-echo'), { sessionId });
    expect(sse.headers.get('content-type')).toBe('text/event-stream');
    expect(sse.headers.get('x-accel-buffering')).toBe('no');
    const events = new SseReader(sse);
    const priming = await within(events.next());
    expect(priming).toMatchObject({ data: '' });
    expect(events.retry).toBe(1_000);
    expect((await within(events.rest())).map((m) => m.method ?? m.id)).toEqual(['notifications/message', 2]);
  } finally {
    await handler.close();
  }
});

test("postResponse 'sse' answers every request with a primed SSE stream", async () => {
  const { handler } = setup({ postResponse: 'sse', retryMs: 250 });
  try {
    const sessionId = await initialize(handler);
    const events = new SseReader(await call(handler, callTool(1, 'echo'), { sessionId }));
    expect(await within(events.next())).toMatchObject({ data: '' });
    expect(events.retry).toBe(250);
    expect(await within(events.rest())).toMatchObject([{ id: 1, result: {} }]);
  } finally {
    await handler.close();
  }
});

test('a session negotiated before 2025-11-25 gets no priming events and no event ids', async () => {
  const { handler } = setup();
  try {
    const sessionId = await initialize(handler, '2025-06-18');
    const events = new SseReader(await call(handler, callTool(1, 'log-then-echo'), { sessionId }));
    const first = await within(events.next());
    expect(first?.id).toBeUndefined();
    expect(first?.data).not.toBe('');
    await within(events.rest());
  } finally {
    await handler.close();
  }
});

test('a client that accepts only JSON gets related messages on its GET stream', async () => {
  const { handler } = setup();
  try {
    const sessionId = await initialize(handler);
    const get = new SseReader(await call(handler, undefined, { sessionId }));
    await within(get.next()); // priming
    const response = await call(handler, callTool(1, 'log-then-echo'), {
      sessionId,
      headers: { accept: 'application/json' },
    });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ id: 1, result: {} });
    expect(await within(get.nextMessage())).toMatchObject({ method: 'notifications/message' });
    await get.cancel();
  } finally {
    await handler.close();
  }
});

test('a client that accepts only SSE always gets SSE', async () => {
  const { handler } = setup();
  try {
    const sessionId = await initialize(handler);
    const response = await call(handler, callTool(1, 'echo'), {
      sessionId,
      headers: { accept: 'text/event-stream' },
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await within(new SseReader(response).rest())).toMatchObject([{ id: 1 }]);
  } finally {
    await handler.close();
  }
});

test('unrelated server requests use the GET stream; without one they fail fast', async () => {
  const { handler, server } = setup();
  try {
    const sessionId = await initialize(handler);
    const session = [...server.sessions][0]!;
    await expect(within(session.request('roots/list', {}))).rejects.toBeInstanceOf(ConnectionClosedError);

    const get = new SseReader(await call(handler, undefined, { sessionId }));
    await within(get.next());
    const asked = session.request('roots/list', {});
    const request = await within(get.nextMessage());
    expect(request).toMatchObject({ method: 'roots/list' });
    const answer = await call(
      handler,
      { jsonrpc: '2.0', id: request!.id, result: { roots: [] } },
      { sessionId },
    );
    expect(answer.status).toBe(202);
    expect(await within(asked)).toEqual({ roots: [] });
    // Notifications with nowhere to go are dropped quietly once the GET stream is gone.
    await get.cancel();
    await session.notify('notifications/tools/list_changed');
  } finally {
    await handler.close();
  }
});

test('a peer cancel ends the POST stream after the nested cancel, with no response at all', async () => {
  const { handler, probes } = setup();
  try {
    const sessionId = await initialize(handler);
    const events = new SseReader(await call(handler, callTool(7, 'block', { key: 'c' }), { sessionId }));
    await within(events.nextMessage());
    const cancel = await call(
      handler,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } },
      { sessionId },
    );
    expect(cancel.status).toBe(202);
    // The handler's elicitation is cancelled on the parent's stream, then the stream ends unanswered.
    const rest = await within(events.rest());
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: expect.anything() },
    });
    expect((await within(probes.for(probes.aborted, 'c').promise)) as Error).toHaveProperty(
      'name',
      'CancelledByPeerError',
    );
    // The id is free again.
    const again = await call(handler, callTool(7, 'echo'), { sessionId });
    expect(await again.json()).toMatchObject({ id: 7, result: {} });
  } finally {
    await handler.close();
  }
});

test('a request id already in flight on the session is refused with 409', async () => {
  const { handler } = setup();
  try {
    const sessionId = await initialize(handler);
    const events = new SseReader(await call(handler, callTool(3, 'block'), { sessionId }));
    await within(events.nextMessage());
    const duplicate = await call(handler, callTool(3, 'echo'), { sessionId });
    expect(duplicate.status).toBe(409);
    expect(await duplicate.json()).toMatchObject({ id: 3, error: { code: -32600 } });
  } finally {
    await handler.close();
  }
});

test('long streams get keep-alive comments; the timer stops with the last stream', async () => {
  const server = new Server({ name: 'k', version: '1' });
  const handler = createHttpHandler(server, { keepAliveMs: 10 });
  try {
    const sessionId = await initialize(handler);
    const response = await call(handler, undefined, { sessionId });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    await within(
      (async () => {
        while (!text.includes(': keep-alive')) text += decoder.decode((await reader.read()).value);
      })(),
      5_000,
      'keep-alive comment',
    );
    await reader.cancel();
  } finally {
    await handler.close();
  }
});

test('messageInfo carries the request headers and authInfo to handlers', async () => {
  const server = new Server({ name: 'info', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', (_params, ctx) => ({
    content: [],
    header: ctx.info?.headers?.get('x-trace') ?? null,
    auth: ctx.info?.authInfo ?? null,
    canClose: typeof ctx.info?.closeSSEStream === 'function',
  }));
  const handler = createHttpHandler(server, { keepAliveMs: 0 });
  try {
    const sessionId = await initialize(handler);
    const response = await handler(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'x-trace': 't-1',
        },
        body: JSON.stringify(callTool(1, 'x')),
      }),
      { authInfo: { clientId: 'c-1' } },
    );
    expect(await response.json()).toMatchObject({
      result: { header: 't-1', auth: { clientId: 'c-1' }, canClose: true },
    });
  } finally {
    await handler.close();
  }
});
