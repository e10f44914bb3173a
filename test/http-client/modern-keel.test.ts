/**
 * Issue 10: the Streamable HTTP client transport against Keel's own HTTP server (127.0.0.1, sessions
 * on) in the 2026-07-28 era. The engine's `Connection` sends hand-built modern `_meta`; a recording
 * `fetch` shows what went over the wire. The server checks every header against the body, so a
 * call that succeeds proves the headers were right.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import {
  Connection,
  McpError,
  RequestAbortedError,
  type Progress,
  type JsonObject,
  type JsonRpcMessage,
} from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, type Deferred } from '../http-server/support/harness.js';
import { outcome } from './support/connect.js';

useProcessGuard();

const MODERN = '2026-07-28';
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'modern-keel', version: '1' } };

function meta(extra: JsonObject = {}): JsonObject {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

interface Fetched {
  method: string;
  headers: Headers;
  body: JsonObject | undefined;
  status?: number;
  contentType?: string | null;
}

interface Setup {
  serving: HttpServing;
  connection: Connection;
  fetched: Fetched[];
  /** Every message the engine offered the transport, with the promise `send` returned. */
  offered: { message: JsonRpcMessage; sent: Promise<void> }[];
  /** The `hold` tool: started, saw its signal abort. */
  started: Deferred<void>;
  aborted: Deferred<void>;
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.connection.close();
  await current?.serving.close({ deadlineMs: 2_000 });
  current = undefined;
});

async function setup(): Promise<Setup> {
  const started = deferred<void>();
  const aborted = deferred<void>();
  const server = new McpServer({ name: 'modern-keel', version: '1' }, { onerror: undefined });
  server.tool('echo', { description: 'Echoes' }, () => 'echo');
  server.tool('grüße an 世界', { description: 'A name that needs Base64' }, () => 'hallo');
  server.tool('steps', { description: 'Reports progress twice' }, async (_args, ctx) => {
    await ctx.progress(1, 2, 'one');
    await ctx.progress(2, 2, 'two');
    return 'stepped';
  });
  server.tool('hold', { description: 'Waits until cancelled' }, async (_args, ctx) => {
    ctx.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
    started.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'never delivered';
  });
  server.tool(
    'route',
    {
      description: 'Has a parameter mirrored as Mcp-Param-Region',
      input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    },
    (args) => `routed to ${String(args.region)}`,
  );
  server.resource('notes', 'file:///notes/résumé.txt', { mimeType: 'text/plain' }, () => 'cv');
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0 });

  const fetched: Fetched[] = [];
  // Recorded when the fetch starts (an aborted one never gets a response).
  const recording: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as JsonObject) : undefined;
    const record: Fetched = { method: init?.method ?? 'GET', headers: new Headers(init?.headers), body };
    fetched.push(record);
    const response = await fetch(input, init);
    record.status = response.status;
    record.contentType = response.headers.get('content-type');
    return response;
  };
  const transport = new StreamableHttpClientTransport(serving.url, { fetch: recording });
  const offered: Setup['offered'] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const sent = send(message, options);
    offered.push({ message, sent: sent.catch(() => undefined) });
    return sent;
  };
  const connection = new Connection(transport);
  void connection.start();
  current = { serving, connection, fetched, offered, started, aborted };
  return current;
}

function call(name: string, args: JsonObject = {}): JsonObject {
  return { name, arguments: args, _meta: meta() };
}

test('JSON answers: tools/call (a Base64 name too) and resources/read; POSTs only, no session', async () => {
  const { connection, fetched, serving } = await setup();
  expect(await within(connection.request('tools/call', call('echo')))).toEqual({
    content: [{ type: 'text', text: 'echo' }],
    resultType: 'complete',
    _meta: SERVER_INFO,
  });
  const greeting = await within(connection.request('tools/call', call('grüße an 世界')));
  expect(greeting.content).toEqual([{ type: 'text', text: 'hallo' }]);
  const read = await within(
    connection.request('resources/read', { uri: 'file:///notes/résumé.txt', _meta: meta() }),
  );
  expect(read.contents).toEqual([{ uri: 'file:///notes/résumé.txt', mimeType: 'text/plain', text: 'cv' }]);

  expect(fetched.map((f) => [f.method, f.status, f.contentType])).toEqual([
    ['POST', 200, 'application/json'],
    ['POST', 200, 'application/json'],
    ['POST', 200, 'application/json'],
  ]);
  expect(fetched[1]!.headers.get('mcp-name')).toMatch(/^=\?base64\?.+\?=$/);
  expect(fetched.every((f) => !f.headers.has('mcp-session-id'))).toBe(true);
  expect(serving.handler.sessionCount).toBe(0);
  await within(connection.close());
  expect(fetched.map((f) => f.method)).toEqual(['POST', 'POST', 'POST']);
});

test('an SSE answer: the progress notifications, then the result', async () => {
  const { connection, fetched } = await setup();
  const seen: (Progress | JsonObject)[] = [];
  const result = connection
    .request('tools/call', call('steps'), { onprogress: (p) => void seen.push(p) })
    .then((value) => void seen.push(value));
  await within(result);
  expect(seen).toEqual([
    { progress: 1, total: 2, message: 'one' },
    { progress: 2, total: 2, message: 'two' },
    { content: [{ type: 'text', text: 'stepped' }], resultType: 'complete', _meta: SERVER_INFO },
  ]);
  expect(fetched.map((f) => f.contentType)).toEqual(['text/event-stream']);
});

test('Mcp-Param-* from RequestOptions.headers reach the server: right value accepted, wrong one is -32020', async () => {
  const { connection } = await setup();
  const routed = await within(
    connection.request('tools/call', call('route', { region: 'us-west1' }), {
      headers: { 'Mcp-Param-Region': 'us-west1' },
    }),
  );
  expect(routed.content).toEqual([{ type: 'text', text: 'routed to us-west1' }]);
  const mismatch = await outcome(
    connection.request('tools/call', call('route', { region: 'us-west1' }), {
      headers: { 'Mcp-Param-Region': 'eu-north1' },
    }),
  );
  expect(mismatch).toBeInstanceOf(McpError);
  expect((mismatch as McpError).code).toBe(-32020);
});

test('modern error bodies arrive as the JSON-RPC errors they are, with their codes', async () => {
  const { connection, fetched } = await setup();
  const unsupported = await outcome(
    connection.request('tools/list', {
      _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }),
    }),
  );
  expect(unsupported).toBeInstanceOf(McpError);
  expect((unsupported as McpError).code).toBe(-32022);
  expect((unsupported as McpError).data).toMatchObject({ supported: [MODERN] });

  const unknownMethod = await outcome(connection.request('no/such-method', { _meta: meta() }));
  expect((unknownMethod as McpError).code).toBe(-32601);
  const unknownResource = await outcome(
    connection.request('resources/read', { uri: 'file:///missing', _meta: meta() }),
  );
  expect((unknownResource as McpError).code).toBe(-32602);
  expect(fetched.map((f) => f.status)).toEqual([400, 404, 400]);

  // The transport was not hurt by any of them.
  expect(await within(connection.request('tools/call', call('echo')))).toMatchObject({
    resultType: 'complete',
  });
});

test("a caller abort cancels the server's handler by closing the POST; no cancel is POSTed; the transport goes on", async () => {
  const { connection, fetched, offered, started, aborted } = await setup();
  const controller = new AbortController();
  const held = outcome(connection.request('tools/call', call('hold'), { signal: controller.signal }));
  await within(started.promise, 5_000, 'hold started');
  controller.abort();
  expect(await held).toBeInstanceOf(RequestAbortedError);
  await within(aborted.promise, 5_000, "the handler's signal aborts");

  // The engine did cancel on the wire; the transport turned that into the closed POST alone.
  let cancel: { sent: Promise<void> } | undefined;
  for (let i = 0; i < 200 && !cancel; i++) {
    cancel = offered.find((o) => 'method' in o.message && o.message.method === 'notifications/cancelled');
    if (!cancel) await new Promise((resolve) => setImmediate(resolve));
  }
  await within(cancel!.sent, 5_000, 'cancel handled');
  expect(await within(connection.request('tools/call', call('echo')))).toMatchObject({
    resultType: 'complete',
  });
  expect(fetched.map((f) => [f.method, f.body?.method, (f.body?.params as JsonObject).name])).toEqual([
    ['POST', 'tools/call', 'hold'],
    ['POST', 'tools/call', 'echo'],
  ]);
});
