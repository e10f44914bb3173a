/**
 * Issue 26 quotas over Streamable HTTP: when the refusal is the whole answer of a POST (a JSON
 * response, or before an SSE stream started), the status is 429 with `Retry-After` (whole
 * seconds, rounded up from `data.retryAfterMs`), in both eras; the body is the JSON-RPC error
 * with the request's id, which a Keel client hands to the caller as the McpError. Another
 * session is served meanwhile. Once an SSE stream has started (`postResponse: 'sse'`) the
 * refusal is an event on it (200).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { ErrorCode, McpError, type JsonObject } from 'keel-mcp/core';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import { McpServer, quotas } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { callTool, openSession, post } from '../http-server/support/harness.js';

useProcessGuard();

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function serve(options: ServeHttpOptions = {}): Promise<{ url: string; runs: () => number }> {
  let runs = 0;
  const server = new McpServer({ name: 'quota-http', version: '1' }, { onerror: undefined });
  server.tool('quick', { description: 'answers at once' }, () => {
    runs++;
    return 'ok';
  });
  server.use(quotas({ limits: { rate: { calls: 1, windowMs: 60_000 } } }));
  const serving: HttpServing = await serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    keepAliveMs: 0,
    ...options,
  });
  open.push(async () => {
    await serving.close({ deadlineMs: 2_000 });
    await server.close();
  });
  return { url: serving.url, runs: () => runs };
}

/** The refusal as a POST answers it: 429, Retry-After in whole seconds from the body's retryAfterMs. */
async function expectTooMany(response: Response, id: number): Promise<void> {
  expect(response.status).toBe(429);
  const body = (await response.json()) as {
    id: unknown;
    error: { code: number; data: { retryAfterMs: number } };
  };
  expect(body.id).toBe(id);
  expect(body.error).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { limit: 'rate' } });
  const retryAfterMs = body.error.data.retryAfterMs;
  expect(retryAfterMs).toBeGreaterThan(59_000);
  expect(retryAfterMs).toBeLessThanOrEqual(60_000);
  expect(response.headers.get('retry-after')).toBe(String(Math.ceil(retryAfterMs / 1_000)));
}

const MODERN_META: JsonObject = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

function modernCall(url: string, id: number): Promise<Response> {
  return post(
    url,
    {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'quick', arguments: {}, _meta: MODERN_META },
    },
    { headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'quick' } },
  );
}

describe('issue 26 quotas over HTTP', () => {
  test('legacy session: the refused POST is 429 + Retry-After; another session is served (200)', async () => {
    const { url, runs } = await serve();
    const a = await openSession(url);
    const b = await openSession(url);
    expect((await post(url, callTool(1, 'quick'), { sessionId: a })).status).toBe(200);
    await expectTooMany(await post(url, callTool(2, 'quick'), { sessionId: a }), 2);
    const served = await post(url, callTool(3, 'quick'), { sessionId: b });
    expect(served.status).toBe(200);
    expect(((await served.json()) as JsonObject).result).toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
    expect(runs()).toBe(2);
  });

  test('2026-07-28: the refused POST is 429 + Retry-After (unauthenticated: one anonymous key)', async () => {
    const { url, runs } = await serve();
    expect((await modernCall(url, 1)).status).toBe(200);
    await expectTooMany(await modernCall(url, 2), 2);
    expect(runs()).toBe(1);
  });

  test("once an SSE stream has started (postResponse: 'sse'), the refusal is its event and the status stays 200", async () => {
    const { url } = await serve({ postResponse: 'sse' });
    const seen: { status: number; type: string | null; retryAfter: string | null }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"'))
        seen.push({
          status: response.status,
          type: response.headers.get('content-type'),
          retryAfter: response.headers.get('retry-after'),
        });
      return response;
    };
    const client = new McpClient({ name: 'quota-client', version: '1' }, { era: 'legacy' });
    await client.connect(new StreamableHttpClientTransport(url, { fetch: recording }));
    open.push(() => client.close());
    await client.callTool('quick');
    await expect(client.callTool('quick')).rejects.toMatchObject({ code: ErrorCode.QuotaExceeded });
    expect(seen).toEqual([
      { status: 200, type: 'text/event-stream', retryAfter: null },
      { status: 200, type: 'text/event-stream', retryAfter: null },
    ]);
  });

  test.each(['legacy', 'modern'] as const)(
    'a Keel client (%s era) gets the McpError with its data, not a transport error',
    async (era) => {
      const { url } = await serve();
      const client = new McpClient({ name: 'quota-client', version: '1' }, { era });
      await client.connect(new StreamableHttpClientTransport(url));
      open.push(() => client.close());
      await client.callTool('quick');
      const error = await client.callTool('quick').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { limit: 'rate' } });
      // The connection is fine: methods that do not count still answer.
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['quick']);
    },
  );
});
