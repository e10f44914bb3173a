/**
 * Bad HTTP input: each gets a 4xx (with a JSON-RPC error body where one fits), never a 5xx or a
 * hang, and the server keeps serving (a ping on a live session after each).
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import { JSON_AND_SSE, openSession, ping, post, startHarness, type Harness } from './support/harness.js';

useProcessGuard();

interface Outcome {
  status: number;
  body: { jsonrpc?: string; id?: unknown; error?: { code: number; message: string } } | undefined;
}

async function outcome(response: Response): Promise<Outcome> {
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Outcome['body']) : undefined };
}

/** node:http, for headers fetch will not let us set (Host). */
function raw(url: string, headers: Record<string, string>, body: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const pingBody = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe.each([
  { mode: 'lenient', strictAccept: false },
  { mode: 'strict', strictAccept: true },
])('$mode Accept', ({ strictAccept }) => {
  let h: Harness;
  let sessionId: string;

  // A server per test: the guard then also proves that each bad request left nothing open.
  beforeEach(async () => {
    h = await startHarness({ strictAccept, maxBodyBytes: 64 * 1024 });
    sessionId = await openSession(h.url);
  });
  afterEach(() => h.close());

  async function expectStillServing(): Promise<void> {
    expect(await within(ping(h.url, sessionId), 5_000, 'ping after bad input')).toMatchObject({ result: {} });
  }

  test('invalid JSON → 400 -32700 with id null', async () => {
    const result = await outcome(await post(h.url, '{"jsonrpc": "2.0", "id": 1,', { sessionId }));
    expect(result).toMatchObject({
      status: 400,
      body: { jsonrpc: '2.0', id: null, error: { code: -32700 } },
    });
    await expectStillServing();
  });

  test('invalid UTF-8 → 400 -32700', async () => {
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-session-id': sessionId },
      body: bytes,
    });
    expect(await outcome(response)).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    await expectStillServing();
  });

  test('wrong Content-Type → 415', async () => {
    const result = await outcome(
      await post(h.url, pingBody, { sessionId, headers: { 'content-type': 'text/plain' } }),
    );
    expect(result).toMatchObject({ status: 415, body: { error: { code: -32600 } } });
    await expectStillServing();
  });

  test('oversized body (Content-Length) → 413', async () => {
    const big = JSON.stringify({ ...pingBody, params: { pad: 'x'.repeat(200 * 1024) } });
    const result = await outcome(await post(h.url, big, { sessionId }));
    expect(result).toMatchObject({ status: 413, body: { error: { code: -32600 } } });
    await expectStillServing();
  });

  test('oversized body (chunked, no Content-Length) → 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Bounded: 1 MiB at most, well past the 64 KiB limit.
        if (sent++ >= 64) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-session-id': sessionId },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(await outcome(response)).toMatchObject({ status: 413 });
    await expectStillServing();
  });

  test('unknown session id → 404', async () => {
    const result = await outcome(await post(h.url, pingBody, { sessionId: 'not-a-session' }));
    expect(result).toMatchObject({ status: 404, body: { error: { code: -32600 } } });
    await expectStillServing();
  });

  test('missing session id on a non-initialize request → 400', async () => {
    const result = await outcome(await post(h.url, pingBody));
    expect(result).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    await expectStillServing();
  });

  test('foreign Origin → 403 with an id-less error', async () => {
    const result = await outcome(
      await post(h.url, pingBody, { sessionId, headers: { origin: 'http://evil.example.com' } }),
    );
    expect(result).toMatchObject({ status: 403, body: { jsonrpc: '2.0', error: { code: -32600 } } });
    expect(result.body).not.toHaveProperty('id');
    await expectStillServing();
  });

  test('foreign Host → 403; own host:port and loopback Origin → allowed', async () => {
    const headers = { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-session-id': sessionId };
    const foreign = await raw(h.url, { ...headers, host: 'evil.example.com' }, JSON.stringify(pingBody));
    expect(foreign).toMatchObject({ status: 403, body: { error: { code: -32600 } } });
    const { host } = new URL(h.url);
    const own = await raw(h.url, { ...headers, host, origin: `http://${host}` }, JSON.stringify(pingBody));
    expect(own).toMatchObject({ status: 200, body: { result: {} } });
    const localhost = await raw(
      h.url,
      { ...headers, host: 'localhost:1', origin: 'https://localhost:4444' },
      JSON.stringify(pingBody),
    );
    expect(localhost.status).toBe(200);
    await expectStillServing();
  });

  test('unsupported MCP-Protocol-Version → 400; any supported one is fine', async () => {
    const bad = await outcome(
      await post(h.url, pingBody, { sessionId, headers: { 'mcp-protocol-version': '1999-01-01' } }),
    );
    expect(bad).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const ok = await post(h.url, pingBody, { sessionId, headers: { 'mcp-protocol-version': version } });
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
    }
    await expectStillServing();
  });

  test('a batch array → 400 -32600', async () => {
    const result = await outcome(await post(h.url, [pingBody, { ...pingBody, id: 2 }], { sessionId }));
    expect(result).toMatchObject({ status: 400, body: { id: null, error: { code: -32600 } } });
    await expectStillServing();
  });

  test('an invalid envelope → 400 with the JSON-RPC error of the message', async () => {
    const result = await outcome(await post(h.url, { jsonrpc: '1.0', id: 7, method: 'ping' }, { sessionId }));
    expect(result).toMatchObject({ status: 400, body: { id: 7, error: { code: -32600 } } });
    await expectStillServing();
  });

  test('GET without text/event-stream → 406', async () => {
    const response = await fetch(h.url, {
      headers: { accept: 'application/json', 'mcp-session-id': sessionId },
    });
    expect(await outcome(response)).toMatchObject({ status: 406, body: { error: { code: -32600 } } });
    await expectStillServing();
  });

  test('a second concurrent GET stream → 409', async () => {
    const headers = { accept: 'text/event-stream', 'mcp-session-id': sessionId };
    const first = await fetch(h.url, { headers });
    expect(first.status).toBe(200);
    const second = await fetch(h.url, { headers });
    expect(await outcome(second)).toMatchObject({ status: 409, body: { error: { code: -32600 } } });
    await first.body?.cancel();
    await expectStillServing();
  });

  test('unsupported method → 405 with Allow', async () => {
    const response = await fetch(h.url, { method: 'PUT', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
    await response.body?.cancel();
    await expectStillServing();
  });

  test('a notification is accepted with 202 and no body', async () => {
    const response = await post(h.url, { jsonrpc: '2.0', method: 'notifications/whatever' }, { sessionId });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
    await expectStillServing();
  });

  test(`Accept handling (strict: ${strictAccept})`, async () => {
    const missing = await post(h.url, pingBody, { sessionId, headers: { accept: '' } });
    const jsonOnly = await post(h.url, pingBody, { sessionId, headers: { accept: 'application/json' } });
    const wildcard = await post(h.url, pingBody, { sessionId, headers: { accept: '*/*' } });
    const html = await post(h.url, pingBody, { sessionId, headers: { accept: 'text/html' } });
    const statuses = [missing.status, jsonOnly.status, wildcard.status, html.status];
    for (const response of [missing, jsonOnly, wildcard, html]) await response.body?.cancel();
    expect(statuses).toEqual(strictAccept ? [406, 406, 406, 406] : [200, 200, 200, 406]);
    await expectStillServing();
  });
});

test('the default body limit is 4 MiB', async () => {
  const h = await startHarness();
  try {
    const sessionId = await openSession(h.url);
    const padding = 'x'.repeat(4 * 1024 * 1024);
    const response = await post(h.url, { ...pingBody, params: { padding } }, { sessionId });
    expect(response.status).toBe(413);
    await response.body?.cancel();
    expect(await ping(h.url, sessionId)).toMatchObject({ result: {} });
  } finally {
    await h.close();
  }
});
