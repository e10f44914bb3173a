/**
 * Issue 10, lifecycle scenarios 22 and 23 over real HTTP (serveHttp on 127.0.0.1, raw fetch): a
 * `subscriptions/listen` POST is answered with a long SSE stream (`X-Accel-Buffering: no`,
 * keep-alive comments): the acknowledgement first, then only the opted-in types, tagged. (a) The
 * client closing the stream ends the listen (no response). (b) The server ending it (handler
 * close, endSubscriptions) writes the queued notifications, exactly one final result, and ends the
 * stream; an in-flight call on another stream is aborted and its stream ends cleanly.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import { McpServer, type ServerSession } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, openSession, post, SseReader } from '../http-server/support/harness.js';
import { registerSubscriptionTools } from './fixtures/subscription-tools.mjs';
import { createFixtureServer } from '../../examples/fixture-server.js';

useProcessGuard();

const MODERN = '2026-07-28';
const SUB = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = { name: 'subs-http', version: '1' };

interface Setup {
  serving: HttpServing;
  server: McpServer;
  url: string;
  /** The `hold` tool started / saw its signal abort. */
  started: ReturnType<typeof deferred<void>>;
  aborted: ReturnType<typeof deferred<void>>;
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.serving.close({ deadlineMs: 2_000 });
  current = undefined;
});

async function setup(options: ServeHttpOptions = {}): Promise<Setup> {
  const server = new McpServer(SERVER_INFO, { onerror: undefined });
  registerSubscriptionTools(server);
  const started = deferred<void>();
  const aborted = deferred<void>();
  server.tool('hold', { description: 'Waits until aborted' }, async (_a, ctx) => {
    await ctx.progress(0, 1, 'holding');
    started.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    aborted.resolve();
    return 'held';
  });
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  current = { serving, server, url: serving.url, started, aborted };
  return current;
}

function body(id: number | string, method: string, params: JsonObject = {}): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        progressToken: method === 'tools/call' ? `p${String(id)}` : undefined,
      },
    },
  };
}

function send(url: string, message: JsonObject, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': message.method as string,
  };
  const name = (message.params as JsonObject).name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return post(url, message, { headers, signal });
}

async function openListen(
  url: string,
  id: number | string,
  notifications: JsonObject,
  signal?: AbortSignal,
): Promise<{ response: Response; reader: SseReader; ack: JsonObject }> {
  const response = await send(url, body(id, 'subscriptions/listen', { notifications }), signal);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  expect(response.headers.get('x-accel-buffering')).toBe('no');
  const reader = new SseReader(response);
  const ack = (await within(reader.nextMessage(), 5_000, 'acknowledgement'))!;
  return { response, reader, ack };
}

/** The modern connection serving the listen with this id (each modern POST has its own). */
function listenSession(server: McpServer): ServerSession {
  const found = [...server.sessions].find((s) => s.era === 'modern');
  if (!found) throw new Error('no modern connection');
  return found;
}

describe('subscriptions/listen over HTTP', () => {
  test('ack first, then only opted-in types, each tagged; the stream stays open', async () => {
    const { url, server } = await setup();
    const { reader, ack } = await openListen(url, 7, {
      toolsListChanged: true,
      resourceSubscriptions: ['test://a'],
    });
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] },
        _meta: { [SUB]: 7 },
      },
    });
    // Not opted into, and sent first: had they been delivered, they would come before the others.
    server.prompt('later', { description: 'x' }, () => 'x');
    await server.notifyResourceUpdated('test://b');
    await server.notifyResourceUpdated('test://a');
    server.tool('added', { description: 'x' }, () => 'x');
    const next = [
      (await within(reader.nextMessage(), 5_000, 'first change'))!,
      (await within(reader.nextMessage(), 5_000, 'second change'))!,
    ];
    expect(next).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'test://a', _meta: { [SUB]: 7 } },
      },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 7 } } },
    ]);
    expect(reader.done).toBe(false);
    await reader.cancel();
  });

  test('a change made through a tool call on another POST reaches the listen', async () => {
    const { url } = await setup();
    const { reader } = await openListen(url, 'L', { toolsListChanged: true });
    const call = await send(url, body(2, 'tools/call', { name: 'add_tool', arguments: { name: 'x' } }));
    expect(call.status).toBe(200);
    await call.text();
    expect(await within(reader.nextMessage(), 5_000, 'list_changed')).toMatchObject({
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUB]: 'L' } },
    });
    await reader.cancel();
  });

  test('a quiet listen stream gets keep-alive comments', async () => {
    const { url } = await setup({ keepAliveMs: 20 });
    const response = await send(
      url,
      body(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
    );
    const stream = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (let i = 0; i < 200 && !/: keep-alive/.test(text); i++) {
      const { value, done } = await within(stream.read(), 5_000, 'stream data');
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toMatch(/notifications\/subscriptions\/acknowledged/);
    expect(text).toMatch(/^: keep-alive$/m);
    await stream.cancel();
  });

  test('(a) closing the stream ends the listen: no response, nothing more for it', async () => {
    const { url, server, serving } = await setup();
    const controller = new AbortController();
    const { reader } = await openListen(url, 9, { toolsListChanged: true }, controller.signal);
    const session = listenSession(server);
    expect(server.server.listens.size).toBe(1);
    controller.abort();
    await within(session.closed, 5_000, 'the listen connection closes');
    expect(server.server.listens.size).toBe(0);
    expect(serving.handler.sessionCount).toBe(0);
    server.tool('after-close', { description: 'x' }, () => 'x'); // reaches nobody
    expect(await reader.rest()).toEqual([]);
  });

  test('(b) endSubscriptions: the queued notification, exactly one final result, then the stream ends', async () => {
    const { url, server } = await setup();
    const { reader } = await openListen(url, 11, { resourceSubscriptions: ['test://a'] });
    void server.notifyResourceUpdated('test://a');
    await server.endSubscriptions();
    const rest = await within(reader.rest(), 5_000, 'the stream ends');
    expect(rest).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'test://a', _meta: { [SUB]: 11 } },
      },
      {
        jsonrpc: '2.0',
        id: 11,
        result: {
          resultType: 'complete',
          _meta: { [SUB]: 11, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
        },
      },
    ]);
  });

  test('scenario 22: host shutdown with a listen and an in-flight call: graceful result, handler aborted, streams end cleanly', async () => {
    const setupDone = await setup();
    const { url, serving, started, aborted } = setupDone;
    current = undefined; // closed by the test itself
    const { reader } = await openListen(url, 21, { toolsListChanged: true });
    const held = await send(url, body(22, 'tools/call', { name: 'hold' }));
    expect(held.headers.get('content-type')).toBe('text/event-stream');
    const heldReader = new SseReader(held);
    await within(started.promise, 5_000, 'hold started');
    await within(serving.close({ deadlineMs: 2_000 }), 5_000, 'shutdown');
    await within(aborted.promise, 5_000, 'hold aborted');
    const listenRest = await within(reader.rest(), 5_000, 'listen stream ends');
    expect(listenRest).toEqual([
      {
        jsonrpc: '2.0',
        id: 21,
        result: {
          resultType: 'complete',
          _meta: { [SUB]: 21, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
        },
      },
    ]);
    const heldRest = await within(heldReader.rest(), 5_000, 'call stream ends');
    // Its progress, then at most the one shutdown error (never a result).
    expect(heldRest.filter((m) => 'result' in m)).toEqual([]);
    expect(heldRest.filter((m) => 'error' in m).length).toBeLessThanOrEqual(1);
  });

  test('a bad filter is 400 with -32602 (JSON, no stream)', async () => {
    const { url } = await setup();
    const response = await send(
      url,
      body(3, 'subscriptions/listen', { notifications: { toolsListChanged: 1 } }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(ErrorCode.InvalidParams);
  });

  test('a legacy session: subscriptions/listen stays unknown (-32601)', async () => {
    const { url } = await setup();
    const sessionId = await openSession(url);
    const response = await post(
      url,
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true } },
      },
      { sessionId, headers: { 'mcp-protocol-version': '2025-11-25' } },
    );
    const answer = (await response.json()) as { error: { code: number } };
    expect(answer.error.code).toBe(ErrorCode.MethodNotFound);
  });

  test('the conformance fixture: its trigger tools reach the listens that opted in, and only those', async () => {
    const serving = await serveHttp(createFixtureServer(), { port: 0, keepAliveMs: 0 });
    try {
      const discover = (await (await send(serving.url, body(1, 'server/discover'))).json()) as {
        result: { capabilities: JsonObject };
      };
      expect(discover.result.capabilities).toMatchObject({
        tools: { listChanged: true },
        prompts: { listChanged: true },
      });
      const tools = await openListen(serving.url, 2, { toolsListChanged: true });
      const prompts = await openListen(serving.url, 3, { promptsListChanged: true });
      for (const [id, name] of [
        [4, 'test_trigger_tool_change'],
        [5, 'test_trigger_prompt_change'],
      ] as const) {
        const response = await send(serving.url, body(id, 'tools/call', { name, arguments: {} }));
        expect(await response.text()).toContain('Mutation triggered');
      }
      expect(await within(tools.reader.nextMessage(), 5_000, 'tools change')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUB]: 2 } },
      });
      expect(await within(prompts.reader.nextMessage(), 5_000, 'prompts change')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/prompts/list_changed',
        params: { _meta: { [SUB]: 3 } },
      });
      // Shutdown: the next (and last) message on each is its final result, so no other type came.
      const ending = serving.close({ deadlineMs: 2_000 });
      expect((await within(tools.reader.rest(), 5_000, 'tools stream end')).map((m) => m.id)).toEqual([2]);
      expect((await within(prompts.reader.rest(), 5_000, 'prompts stream end')).map((m) => m.id)).toEqual([
        3,
      ]);
      await ending;
    } finally {
      await serving.close({ deadlineMs: 2_000 });
    }
  });
});
