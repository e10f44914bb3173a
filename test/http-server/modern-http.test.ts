/**
 * Issue 10: the 2026-07-28 HTTP binding, server side. A real node HTTP server (127.0.0.1) with
 * Keel's handler and sessions on, raw fetch: modern requests (no session id, modern `_meta`) are
 * served on the same endpoint as legacy sessions, each on its own short-lived connection.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { registerMrtrTools } from '../modern/fixtures/mrtr-tools.mjs';
import { deferred, JSON_AND_SSE, openSession, post, SseReader, type Deferred } from './support/harness.js';

useProcessGuard();

const MODERN = '2026-07-28';
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'modern-http', version: '1' } };

interface Setup {
  serving: HttpServing;
  url: string;
  /** Per key: the `hold` handler started / saw its signal abort / may finish. */
  started: Map<string, Deferred<void>>;
  aborted: Map<string, Deferred<void>>;
  gates: Map<string, Deferred<void>>;
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.serving.close({ deadlineMs: 2_000 });
  current = undefined;
});

function entry(table: Map<string, Deferred<void>>, key: string): Deferred<void> {
  let found = table.get(key);
  if (!found) table.set(key, (found = deferred<void>()));
  return found;
}

async function setup(options: ServeHttpOptions = {}): Promise<Setup> {
  const started = new Map<string, Deferred<void>>();
  const aborted = new Map<string, Deferred<void>>();
  const gates = new Map<string, Deferred<void>>();
  const server = new McpServer({ name: 'modern-http', version: '1' }, { onerror: undefined });
  server.tool('echo', { description: 'Echoes' }, () => 'echo');
  server.tool('steps', { description: 'Reports progress twice' }, async (_args, ctx) => {
    await ctx.progress(1, 2, 'one');
    await ctx.progress(2, 2, 'two');
    return 'stepped';
  });
  server.tool(
    'hold',
    {
      description: 'Reports progress, then waits for its gate',
      input: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    },
    async (args, ctx) => {
      const key = String(args.key);
      ctx.signal.addEventListener('abort', () => entry(aborted, key).resolve(), { once: true });
      await ctx.progress(0, 1, 'holding');
      entry(started, key).resolve();
      await Promise.race([
        entry(gates, key).promise,
        new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true })),
      ]);
      return `held ${key}`;
    },
  );
  server.resource('readme', 'file:///readme.md', { mimeType: 'text/plain' }, () => 'read me');
  registerMrtrTools(server);
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  current = { serving, url: serving.url, started, aborted, gates };
  return current;
}

function modernBody(id: number, method: string, params: JsonObject = {}, meta: JsonObject = {}): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
}

/** The headers a conforming 2026-07-28 client sends for `body`. */
function modernHeaders(body: JsonObject): Record<string, string> {
  const params = body.params as JsonObject;
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': body.method as string,
  };
  const name = body.method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return headers;
}

function send(
  url: string,
  body: JsonObject,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return post(url, body, { headers: { ...modernHeaders(body), ...headers }, signal });
}

function call(id: number, name: string, args: JsonObject = {}, meta: JsonObject = {}): JsonObject {
  return modernBody(id, 'tools/call', { name, arguments: args }, meta);
}

async function json(response: Response): Promise<JsonObject> {
  expect(response.headers.get('content-type')).toBe('application/json');
  return (await response.json()) as JsonObject;
}

test('a modern tools/call without a session id is served (JSON), with no session created', async () => {
  const { url, serving } = await setup();
  const response = await send(url, call(1, 'echo'));
  expect(response.status).toBe(200);
  expect(response.headers.get('mcp-session-id')).toBeNull();
  expect(await json(response)).toEqual({
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: 'echo' }], resultType: 'complete', _meta: SERVER_INFO },
  });
  expect(serving.handler.sessionCount).toBe(0);
});

test('a modern tools/call with a progress token is answered on SSE: its progress, then the result', async () => {
  const { url } = await setup();
  const response = await send(url, call(2, 'steps', {}, { progressToken: 'p' }));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  expect(response.headers.get('x-accel-buffering')).toBe('no');
  const reader = new SseReader(response);
  const messages: JsonObject[] = [];
  for (let i = 0; i < 3; i++) messages.push((await within(reader.nextMessage(), 5_000, 'event'))!);
  expect(messages.map((m) => (m.params as JsonObject | undefined)?.progress ?? m.result)).toEqual([
    1,
    2,
    { content: [{ type: 'text', text: 'stepped' }], resultType: 'complete', _meta: SERVER_INFO },
  ]);
  expect(messages[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p' } });
  expect(await within(reader.nextMessage(), 5_000, 'end')).toBeUndefined();
});

test('server/discover over HTTP', async () => {
  const { url } = await setup();
  const body = await json(await send(url, modernBody(3, 'server/discover')));
  expect(body.result).toMatchObject({ supportedVersions: [MODERN], capabilities: { tools: {} } });
});

test('a multi round-trip request over HTTP: input_required, then the retry on a new POST completes', async () => {
  const { url } = await setup();
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
  const first = await json(await send(url, call(4, 'ask_name', {}, caps)));
  const round = first.result as JsonObject;
  expect(round).toMatchObject({
    resultType: 'input_required',
    inputRequests: { user_name: { method: 'elicitation/create' } },
    requestState: expect.any(String),
  });
  const retry = modernBody(
    5,
    'tools/call',
    {
      name: 'ask_name',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: round.requestState,
    },
    caps,
  );
  const second = await json(await send(url, retry));
  expect(second.result).toEqual({
    content: [{ type: 'text', text: 'Hello, Ada!' }],
    resultType: 'complete',
    _meta: SERVER_INFO,
  });
});

test.each([
  ['MCP-Protocol-Version missing', { 'mcp-protocol-version': '' }],
  ['MCP-Protocol-Version not the body version', { 'mcp-protocol-version': '2025-11-25' }],
  ['Mcp-Method missing', { 'mcp-method': '' }],
  ['Mcp-Method not the body method', { 'mcp-method': 'tools/list' }],
  ['Mcp-Method differing in case only', { 'mcp-method': 'TOOLS/CALL' }],
  ['Mcp-Name missing', { 'mcp-name': '' }],
  ['Mcp-Name not the body name', { 'mcp-name': 'other' }],
  ['Mcp-Name with malformed Base64', { 'mcp-name': '=?base64?!!!?=' }],
  ['Mcp-Name Base64 of another name', { 'mcp-name': `=?base64?${btoa('other')}?=` }],
] as [string, Record<string, string>][])(
  '%s: 400 with -32020 HeaderMismatch, and the tool does not run',
  async (_label, override) => {
    const { url, started } = await setup();
    const body = call(6, 'hold', { key: 'h' });
    const headers = { ...modernHeaders(body), ...override };
    // An empty override stands for a missing header.
    for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
    const response = await post(url, body, { headers });
    expect(response.status).toBe(400);
    const reply = await json(response);
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 6, error: { code: -32020 } });
    expect(started.has('h')).toBe(false);
  },
);

test('Mcp-Name: Base64 form, surrounding whitespace and resources/read by uri are accepted', async () => {
  const { url } = await setup();
  const encoded = await send(url, call(7, 'echo'), { 'mcp-name': `=?base64?${btoa('echo')}?=` });
  expect((await json(encoded)).result).toMatchObject({ content: [{ type: 'text', text: 'echo' }] });
  const padded = await send(url, call(8, 'echo'), { 'mcp-name': '  echo  ', 'mcp-method': ' tools/call ' });
  expect(padded.status).toBe(200);
  const read = await send(url, modernBody(9, 'resources/read', { uri: 'file:///readme.md' }));
  expect((await json(read)).result).toMatchObject({ contents: [{ text: 'read me' }] });
  const wrongUri = await send(url, modernBody(10, 'resources/read', { uri: 'file:///readme.md' }), {
    'mcp-name': 'file:///other.md',
  });
  expect(wrongUri.status).toBe(400);
  expect((await json(wrongUri)).error).toMatchObject({ code: -32020 });
});

test('modern errors carry their HTTP status: -32601 → 404, -32022, -32021 and -32602 → 400', async () => {
  const { url } = await setup();
  const unknown = await send(url, modernBody(11, 'no/such/method'));
  expect(unknown.status).toBe(404);
  expect(await json(unknown)).toMatchObject({ id: 11, error: { code: -32601 } });
  const initialize = await send(url, modernBody(12, 'initialize'));
  expect(initialize.status).toBe(404);
  expect((await json(initialize)).error).toMatchObject({ code: -32601 });
  const future = modernBody(
    13,
    'tools/list',
    {},
    { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
  );
  const unsupported = await send(url, future, { 'mcp-protocol-version': '2099-01-01' });
  expect(unsupported.status).toBe(400);
  expect((await json(unsupported)).error).toMatchObject({
    code: -32022,
    data: { supported: [MODERN], requested: '2099-01-01' },
  });
  const noCapability = await send(url, call(14, 'ask_name'));
  expect(noCapability.status).toBe(400);
  expect((await json(noCapability)).error).toMatchObject({ code: -32021 });
  const noCapabilities = modernBody(16, 'tools/list');
  delete ((noCapabilities.params as JsonObject)._meta as JsonObject)[
    'io.modelcontextprotocol/clientCapabilities'
  ];
  const invalid = await send(url, noCapabilities);
  expect(invalid.status).toBe(400);
  expect((await json(invalid)).error).toMatchObject({ code: -32602 });
  const noMetaVersion = modernBody(15, 'tools/list');
  delete ((noMetaVersion.params as JsonObject)._meta as JsonObject)[
    'io.modelcontextprotocol/protocolVersion'
  ];
  const malformed = await send(url, noMetaVersion);
  expect(malformed.status).toBe(400);
  expect(await json(malformed)).toMatchObject({ id: 15, error: { code: -32602 } });
  // No _meta at all, but a modern version header: still a malformed modern request, not legacy.
  const noMeta = await send(
    url,
    { jsonrpc: '2.0', id: 19, method: 'tools/list', params: {} },
    {
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/list',
    },
  );
  expect(noMeta.status).toBe(400);
  expect(await json(noMeta)).toMatchObject({ id: 19, error: { code: -32602 } });
});

test("postResponse: 'sse' (legacy streams from the start) still answers a modern error with its status", async () => {
  const { url } = await setup({ postResponse: 'sse' });
  const unknown = await send(url, modernBody(17, 'ping'));
  expect(unknown.status).toBe(404);
  expect(await json(unknown)).toMatchObject({ id: 17, error: { code: -32601 } });
  const streamed = await send(url, call(18, 'steps', {}, { progressToken: 'p' }));
  expect(streamed.headers.get('content-type')).toBe('text/event-stream');
  const reader = new SseReader(streamed);
  for (let i = 0; i < 2; i++) await within(reader.nextMessage(), 5_000, 'progress');
  expect(await within(reader.nextMessage(), 5_000, 'result')).toMatchObject({ id: 18, result: {} });
});

test('GET and DELETE from a modern client are 405 (POST only)', async () => {
  const { url } = await setup();
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(url, {
      method,
      headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    await response.body?.cancel();
  }
});

test('closing a modern request stream cancels exactly that request; a concurrent one completes', async () => {
  const { url, started, aborted, gates } = await setup();
  const progress = { progressToken: 't' };
  const controller = new AbortController();
  const a = await send(url, call(20, 'hold', { key: 'a' }, progress), {}, controller.signal);
  const readerA = new SseReader(a);
  expect(await within(readerA.nextMessage(), 5_000, 'a progress')).toMatchObject({
    method: 'notifications/progress',
  });
  const b = await send(url, call(21, 'hold', { key: 'b' }, progress));
  const readerB = new SseReader(b);
  await within(entry(started, 'b').promise, 5_000, 'b started');
  await within(readerB.nextMessage(), 5_000, 'b progress');
  controller.abort();
  await within(entry(aborted, 'a').promise, 5_000, 'a aborted');
  expect(aborted.has('b')).toBe(false);
  entry(gates, 'b').resolve();
  expect(await within(readerB.nextMessage(), 5_000, 'b result')).toMatchObject({
    id: 21,
    result: { content: [{ type: 'text', text: 'held b' }] },
  });
  expect(aborted.has('b')).toBe(false);
});

test('a legacy session on the same endpoint still works: initialize, call, GET, DELETE', async () => {
  const { url, serving } = await setup();
  const sessionId = await openSession(url);
  const legacyCall = await post(
    url,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } },
    { sessionId },
  );
  expect(await json(legacyCall)).toEqual({
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: 'echo' }] },
  });
  // A legacy POST without a session id still needs one.
  const orphan = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
  expect(orphan.status).toBe(400);
  await orphan.body?.cancel();
  // A modern request naming the session is refused on the session path (not served as modern).
  const mixed = await send(url, call(3, 'echo'), { 'mcp-session-id': sessionId });
  expect(mixed.status).toBe(400);
  expect((await json(mixed)).error).toMatchObject({ code: -32600 });
  // A modern notification without a session id: 2026-07-28 defines none over HTTP, and its
  // binding answers a notification POST with 202 (no body); it does not touch the session.
  const note = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} },
    {
      headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/cancelled' },
    },
  );
  expect(note.status).toBe(202);
  expect(await note.text()).toBe('');
  const controller = new AbortController();
  const get = await fetch(url, {
    headers: { accept: JSON_AND_SSE, 'mcp-session-id': sessionId },
    signal: controller.signal,
  });
  expect(get.status).toBe(200);
  expect(get.headers.get('content-type')).toBe('text/event-stream');
  controller.abort();
  await get.body?.cancel().catch(() => undefined);
  expect(serving.handler.sessionCount).toBe(1);
  const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
  expect(deleted.status).toBe(200);
  expect(serving.handler.sessionCount).toBe(0);
});
