/**
 * Lifecycle guarantees 3 (a cancelled request gets no response), 10 (bad cancellations are
 * ignored) and 11 (a handler's context dies with its request), and scenarios 5, 6, 7, 9, 11 and
 * 15 of the lifecycle reference, over real HTTP (serveHttp on 127.0.0.1, raw fetch; scenario 11
 * with Keel's HTTP client). The memory-transport versions are in test/lifecycle/.
 *
 * Every POST is answered with SSE from the start (`postResponse: 'sse'`), so a request's stream
 * is open when its cancel arrives. A cancelled request's stream ends with no message at all
 * (docs/http.md), never with a result or the handler's error. What is sent outside a request's
 * stream goes to the session's GET stream: a marker sent there after the handler finished proves
 * that nothing for the request came before it.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { Client } from 'keel-mcp/client';
import {
  ContextClosedError,
  ErrorCode,
  McpError,
  RequestTimeoutError,
  type RequestContext,
  type JsonObject,
} from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { callTool, deferred, initializeRequest, post, Probes, SseReader } from './support/harness.js';

useProcessGuard();

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

interface Wire {
  serving: HttpServing;
  server: Server;
  probes: Probes;
  url: string;
  sessionId: string;
  get: SseReader;
  /** Contexts kept by the `keep` tool, by key. */
  kept: Map<string, RequestContext>;
  /** What the late back-channel request of `use-after-cancel` rejected with, by key. */
  lateErrors: Map<string, unknown>;
  close(): Promise<void>;
}

/**
 * Tools (probes keyed by `arguments.key`):
 * - `ignore-cancel`: waits for its abort, then returns a result anyway.
 * - `throw-after-cancel`: waits for its abort, then throws (an McpError with `mcp: true`).
 * - `instant`: returns at once.
 * - `gated`: returns when the test opens its gate; throws its abort reason if aborted first.
 * - `keep`: keeps its context and returns.
 * - `use-after-cancel`: waits for its abort, then notifies, reports progress and makes a
 *   back-channel request (its error is kept in `lateErrors`), then returns.
 */
async function startWire(): Promise<Wire> {
  const probes = new Probes();
  const kept = new Map<string, RequestContext>();
  const lateErrors = new Map<string, unknown>();
  const server = new Server({ name: 'wire', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', async (params, ctx) => {
    const args = (params.arguments ?? {}) as JsonObject;
    const key = String(args.key ?? params.name);
    ctx.signal.addEventListener('abort', () => probes.for(probes.aborted, key).resolve(ctx.signal.reason), {
      once: true,
    });
    probes.for(probes.started, key).resolve();
    try {
      switch (params.name) {
        case 'ignore-cancel':
          await aborted(ctx.signal);
          return text(`${key} finished anyway`);
        case 'throw-after-cancel':
          await aborted(ctx.signal);
          throw args.mcp ? new McpError(ErrorCode.InternalError, 'late failure') : new Error('late failure');
        case 'instant':
          return text(`instant ${key}`);
        case 'gated': {
          const gate = probes.for(probes.gates, key).promise.then(() => 'open' as const);
          if ((await Promise.race([gate, aborted(ctx.signal)])) !== 'open') throw ctx.signal.reason;
          return text(`gated ${key}`);
        }
        case 'keep':
          kept.set(key, ctx);
          return text(`kept ${key}`);
        case 'use-after-cancel':
          await aborted(ctx.signal);
          await ctx.notify('notifications/message', { level: 'info', data: 'late' });
          await ctx.progress(1, 2, 'late');
          lateErrors.set(key, await ctx.request('roots/list', {}).catch((error: unknown) => error));
          return text(`${key} done`);
        default:
          return text('unknown');
      }
    } finally {
      probes.for(probes.finished, key).resolve();
    }
  });
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0, postResponse: 'sse' });
  const url = serving.url;
  let sessionId: string;
  let get: SseReader;
  try {
    sessionId = await openSseSession(url);
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
    });
    expect(response.status).toBe(200);
    get = new SseReader(response);
    await within(get.next(), 5_000, 'GET stream priming');
  } catch (error) {
    await serving.close({ deadlineMs: 1_000 });
    throw error;
  }
  return {
    serving,
    server,
    probes,
    url,
    sessionId,
    get,
    kept,
    lateErrors,
    close: async () => {
      await get.cancel();
      await serving.close({ deadlineMs: 2_000 });
    },
  };
}

/** Initialize (answered as SSE here) and send `initialized`; returns the session id. */
async function openSseSession(url: string): Promise<string> {
  const response = await post(url, initializeRequest());
  const sessionId = response.headers.get('mcp-session-id');
  const messages = await within(new SseReader(response).rest(), 5_000, 'initialize');
  if (!sessionId || !messages[0]?.result) throw new Error(`initialize failed: ${JSON.stringify(messages)}`);
  const ack = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId });
  expect(ack.status).toBe(202);
  return sessionId;
}

async function cancel(wire: Wire, requestId: unknown, reason = 'test'): Promise<void> {
  const params = requestId === undefined ? { reason } : { requestId, reason };
  const response = await post(
    wire.url,
    { jsonrpc: '2.0', method: 'notifications/cancelled', params },
    {
      sessionId: wire.sessionId,
    },
  );
  expect(response.status).toBe(202);
  await response.body?.cancel();
}

/** Send a marker on the GET stream and return every message that came before it. */
async function standaloneUntilMarker(wire: Wire, marker: string): Promise<JsonObject[]> {
  const session = [...wire.server.sessions][0]!;
  await session.notify('notifications/message', { level: 'info', data: marker });
  const before: JsonObject[] = [];
  for (;;) {
    const message = await within(wire.get.nextMessage(), 5_000, `marker ${marker}`);
    if (!message) throw new Error('GET stream ended before the marker');
    if ((message.params as { data?: unknown } | undefined)?.data === marker) return before;
    before.push(message);
  }
}

async function callOnStream(wire: Wire, id: number, name: string, args: JsonObject = {}): Promise<SseReader> {
  const response = await post(wire.url, callTool(id, name, args), { sessionId: wire.sessionId });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return new SseReader(response);
}

async function expectServing(wire: Wire, id: number): Promise<void> {
  const stream = await callOnStream(wire, id, 'instant', { key: `check-${id}` });
  expect(await within(stream.rest())).toEqual([{ jsonrpc: '2.0', id, result: text(`instant check-${id}`) }]);
}

test('guarantee 3 / scenario 5: a handler that ignores the cancel and returns: its result is never written', async () => {
  const wire = await startWire();
  try {
    const stream = await callOnStream(wire, 1, 'ignore-cancel', { key: 'a' });
    await within(wire.probes.for(wire.probes.started, 'a').promise);
    await cancel(wire, 1);
    expect(await within(stream.rest())).toEqual([]);
    await within(wire.probes.for(wire.probes.finished, 'a').promise, 5_000, 'handler returned');
    expect(await standaloneUntilMarker(wire, 'after-a')).toEqual([]);
    await expectServing(wire, 2);
  } finally {
    await wire.close();
  }
});

for (const mcp of [false, true]) {
  test(`guarantee 3 / scenario 6: a handler that throws ${mcp ? 'an McpError' : 'an Error'} after the cancel: no error is written`, async () => {
    const wire = await startWire();
    try {
      const stream = await callOnStream(wire, 1, 'throw-after-cancel', { key: 't', mcp });
      await within(wire.probes.for(wire.probes.started, 't').promise);
      await cancel(wire, 1, 'stop');
      expect(await within(stream.rest())).toEqual([]);
      await within(wire.probes.for(wire.probes.finished, 't').promise, 5_000, 'handler threw');
      expect(await standaloneUntilMarker(wire, 'after-t')).toEqual([]);
      await expectServing(wire, 2);
    } finally {
      await wire.close();
    }
  });
}

test('scenario 7: a cancel racing an instant result, sent twice: at most the one result for the id', async () => {
  const wire = await startWire();
  try {
    for (let id = 10; id < 30; id++) {
      const key = `r${id}`;
      // The call and two cancels go out on separate connections at once; either may win.
      const [response] = await Promise.all([
        post(wire.url, callTool(id, 'instant', { key }), { sessionId: wire.sessionId }),
        cancel(wire, id),
        cancel(wire, id),
      ]);
      const messages = await within(new SseReader(response).rest());
      // The result won, or the cancel did and the stream ended unanswered: never anything else.
      expect([[{ jsonrpc: '2.0', id, result: text(`instant ${key}`) }], []]).toContainEqual(messages);
    }
    // A cancel after the answer (a finished id) is ignored.
    const late = await callOnStream(wire, 40, 'instant', { key: 'late' });
    expect(await within(late.rest())).toEqual([{ jsonrpc: '2.0', id: 40, result: text('instant late') }]);
    await cancel(wire, 40);
    await cancel(wire, 40);
    expect(await standaloneUntilMarker(wire, 'after-races')).toEqual([]);
    await expectServing(wire, 41);
  } finally {
    await wire.close();
  }
});

test('scenario 9: cancelling A leaves a concurrent B running to its own result', async () => {
  const wire = await startWire();
  try {
    const a = await callOnStream(wire, 1, 'gated', { key: 'A' });
    const b = await callOnStream(wire, 2, 'gated', { key: 'B' });
    await within(
      Promise.all([
        wire.probes.for(wire.probes.started, 'A').promise,
        wire.probes.for(wire.probes.started, 'B').promise,
      ]),
    );
    await cancel(wire, 1);
    expect(await within(a.rest())).toEqual([]);
    expect(String(await within(wire.probes.for(wire.probes.aborted, 'A').promise))).toContain('test');
    expect(wire.probes.aborted.has('B')).toBe(false);
    wire.probes.for(wire.probes.gates, 'B').resolve();
    expect(await within(b.rest())).toEqual([{ jsonrpc: '2.0', id: 2, result: text('gated B') }]);
    expect(wire.probes.aborted.has('B')).toBe(false);
  } finally {
    await wire.close();
  }
});

test('guarantee 10: bad cancels (unknown, missing, null, boolean, object, string-for-number, finished) are ignored', async () => {
  const wire = await startWire();
  try {
    const running = await callOnStream(wire, 1, 'gated', { key: 'g' });
    await within(wire.probes.for(wire.probes.started, 'g').promise);
    const finished = await callOnStream(wire, 2, 'instant', { key: 'f' });
    expect(await within(finished.rest())).toHaveLength(1);
    for (const requestId of [999, undefined, null, true, { id: 1 }, '1', 2, 2]) await cancel(wire, requestId);
    await expectServing(wire, 3);
    expect(wire.probes.aborted.has('g')).toBe(false);
    expect(await standaloneUntilMarker(wire, 'after-bad-cancels')).toEqual([]);
    wire.probes.for(wire.probes.gates, 'g').resolve();
    expect(await within(running.rest())).toEqual([{ jsonrpc: '2.0', id: 1, result: text('gated g') }]);
  } finally {
    await wire.close();
  }
});

test('guarantee 11 / scenario 15: a context used after its response: request throws, notify and progress are dropped', async () => {
  const wire = await startWire();
  try {
    const response = await post(
      wire.url,
      {
        ...callTool(1, 'keep', { key: 'k' }),
        params: { name: 'keep', arguments: { key: 'k' }, _meta: { progressToken: 'tok' } },
      },
      { sessionId: wire.sessionId },
    );
    expect(await within(new SseReader(response).rest())).toEqual([
      { jsonrpc: '2.0', id: 1, result: text('kept k') },
    ]);
    const ctx = wire.kept.get('k')!;
    expect(ctx.ended).toBe(true);
    await expect(ctx.request('roots/list', {})).rejects.toBeInstanceOf(ContextClosedError);
    await ctx.notify('notifications/message', { level: 'info', data: 'late' });
    await ctx.progress(2, 2, 'late');
    expect(await standaloneUntilMarker(wire, 'after-keep')).toEqual([]);
    await expectServing(wire, 2);
  } finally {
    await wire.close();
  }
});

test('guarantee 11: the context of a cancelled request is dead at once: nothing it sends is written', async () => {
  const wire = await startWire();
  try {
    const response = await post(
      wire.url,
      {
        ...callTool(1, 'use-after-cancel'),
        params: { name: 'use-after-cancel', arguments: { key: 'u' }, _meta: { progressToken: 'tok' } },
      },
      { sessionId: wire.sessionId },
    );
    const stream = new SseReader(response);
    await within(wire.probes.for(wire.probes.started, 'u').promise);
    await cancel(wire, 1);
    expect(await within(stream.rest())).toEqual([]);
    await within(wire.probes.for(wire.probes.finished, 'u').promise);
    expect(wire.lateErrors.get('u')).toBeInstanceOf(ContextClosedError);
    expect(await standaloneUntilMarker(wire, 'after-u')).toEqual([]);
    await expectServing(wire, 2);
  } finally {
    await wire.close();
  }
});

test('scenario 11: initialize is never cancelled: over HTTP a timed-out initialize sends no notifications/cancelled', async () => {
  const bodies: JsonObject[] = [];
  const held: ServerResponse[] = [];
  const initializeSeen = deferred<void>();
  // A server that never answers initialize: it opens an SSE response and writes nothing.
  const silent = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as JsonObject;
      bodies.push(message);
      if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        held.push(res);
        initializeSeen.resolve();
      } else {
        res.writeHead(202).end();
      }
    });
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  const client = new Client({ name: 'c', version: '1' });
  try {
    const connecting = client
      .connect(new StreamableHttpClientTransport(`http://127.0.0.1:${port}/mcp`), { timeoutMs: 200 })
      .catch((error: unknown) => error);
    await within(initializeSeen.promise, 5_000, 'initialize sent');
    expect(await within(connecting, 5_000, 'connect settles')).toBeInstanceOf(RequestTimeoutError);
    await client.close();
  } finally {
    for (const res of held) res.end();
    await new Promise<void>((resolve) => {
      silent.close(() => resolve());
      silent.closeAllConnections();
    });
  }
  expect(bodies.map((body) => body.method)).toEqual(['initialize']);
});
