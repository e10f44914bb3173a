/**
 * Brief SX item 5, over real HTTP (serveHttp on 127.0.0.1, raw fetch):
 * - a 2026-07-28 notification POST without a session id is accepted with 202 and no body
 *   (streamable-http.mdx "Sending Messages" 5 and the message flow), with or without sessions, and
 *   nothing acts on it; a legacy notification without a session id is still refused (400);
 * - logging goes only to a request that set `io.modelcontextprotocol/logLevel`, at or above that
 *   level, and only on that request's own response stream (logging.mdx "Per-request log level");
 * - `resources/read` of an unknown URI is `-32602` with `data.uri` in the modern era, HTTP 400
 *   (resources.mdx "Error Handling").
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, post, SseReader } from '../http-server/support/harness.js';
import { meta, MODERN } from './harness.js';

useProcessGuard();

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

const gate = deferred<void>();
let entered = 0;
const bothIn = deferred<void>();

let built: McpServer | undefined;

function build(): McpServer {
  const server = new McpServer({ name: 'notify-log', version: '1' }, { onerror: undefined });
  built = server;
  server.tool(
    'chatty',
    {
      description: 'Logs at three levels, waits for the gate, logs again',
      input: { type: 'object', properties: { who: { type: 'string' } } },
    },
    async ({ who }, ctx) => {
      await ctx.log('debug', `${String(who)} debug`);
      await ctx.log('info', `${String(who)} info`);
      await ctx.log('warning', `${String(who)} warning`);
      if (++entered === 2) bothIn.resolve();
      await gate.promise;
      await ctx.log('error', `${String(who)} error`);
      return `done ${String(who)}`;
    },
  );
  server.resource('readme', 'file:///readme.md', { mimeType: 'text/plain' }, () => 'read me');
  server.tool('quiet', { description: 'Logs once' }, async (_args, ctx) => {
    await ctx.log('emergency', 'quiet log');
    return 'quiet';
  });
  return server;
}

async function start(options: ServeHttpOptions = {}): Promise<string> {
  serving = await serveHttp(build(), { port: 0, keepAliveMs: 0, ...options });
  return serving.url;
}

function modernPost(url: string, id: number, method: string, params: JsonObject, extra: JsonObject = {}) {
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(extra) } };
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return post(url, body, { headers });
}

/** Every message of an SSE response, to its end (bounded). */
async function drain(response: Response): Promise<JsonObject[]> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = new SseReader(response);
  const messages: JsonObject[] = [];
  for (let i = 0; i < 20; i++) {
    const message = await within(reader.nextMessage(), 5_000, 'event');
    if (message === undefined) return messages;
    messages.push(message);
  }
  throw new Error('stream did not end');
}

test.each([
  ['sessions on', {}],
  ['sessions off', { sessions: false }],
] as [string, ServeHttpOptions][])(
  'a modern notification POST without a session id gets 202 and no body (%s)',
  async (_label, options) => {
    const url = await start(options);
    for (const note of [
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { _meta: meta() } },
    ]) {
      const response = await post(url, note, { headers: { 'mcp-protocol-version': MODERN } });
      expect(response.status).toBe(202);
      expect(await response.text()).toBe('');
    }
    // Modern by its _meta alone, without the version header.
    const byMeta = await post(url, {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { _meta: meta() },
    });
    expect(byMeta.status).toBe(202);
    await byMeta.body?.cancel();
    expect(serving!.handler.sessionCount).toBe(0);
  },
);

test('a legacy notification without a session id is still refused when sessions are on', async () => {
  const url = await start();
  const response = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' });
  expect(response.status).toBe(400);
  await response.body?.cancel();
});

test('logs go only to the request that set logLevel, at or above it, on its own stream; never the broadcasts', async () => {
  const url = await start();
  const loud = modernPost(
    url,
    1,
    'tools/call',
    { name: 'chatty', arguments: { who: 'loud' } },
    {
      'io.modelcontextprotocol/logLevel': 'info',
      progressToken: 'loud',
    },
  );
  const silent = modernPost(
    url,
    2,
    'tools/call',
    { name: 'chatty', arguments: { who: 'silent' } },
    {
      progressToken: 'silent',
    },
  );
  await within(bothIn.promise, 5_000, 'both handlers logging');
  // A server-wide log while both are in flight reaches neither (modern connections get none).
  await built!.log('emergency', 'broadcast');
  gate.resolve();
  const [loudMessages, silentMessages] = await Promise.all([drain(await loud), (await silent).json()]);
  expect(
    loudMessages.map((m) => (m.params as JsonObject | undefined)?.data ?? (m.result as JsonObject).content),
  ).toEqual(['loud info', 'loud warning', 'loud error', [{ type: 'text', text: 'done loud' }]]);
  expect(loudMessages.slice(0, 3).every((m) => m.method === 'notifications/message')).toBe(true);
  // Nothing was sent before its result: answered as one JSON body.
  expect(silentMessages).toMatchObject({
    id: 2,
    result: { content: [{ type: 'text', text: 'done silent' }] },
  });
});

test('a request without logLevel gets no log even at emergency level', async () => {
  const url = await start();
  const response = await modernPost(url, 3, 'tools/call', { name: 'quiet' });
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(await response.json()).toMatchObject({
    id: 3,
    result: { content: [{ type: 'text', text: 'quiet' }] },
  });
});

test('resources/read of an unknown URI: -32602 with data.uri, HTTP 400', async () => {
  const url = await start();
  const response = await modernPost(url, 4, 'resources/read', { uri: 'file:///nope.txt' });
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({
    id: 4,
    error: { code: -32602, data: { uri: 'file:///nope.txt' } },
  });
});
