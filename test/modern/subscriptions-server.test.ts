/**
 * Issue 10: `subscriptions/listen` on the server, over the memory transport with a raw JSON-RPC
 * client (the `_meta` is written by hand). Acknowledgement first, only opted-in types, the
 * subscription id on each, graceful end (server close, endSubscriptions), client cancel, bad
 * filters, legacy connections.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCode, type JsonObject, type JsonRpcMessage } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from '../server-api/harness.js';
import { connectRaw, meta, type Raw } from './harness.js';

useProcessGuard();
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

const SUB = 'io.modelcontextprotocol/subscriptionId';

function build(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const s = new McpServer({ name: 'subs', version: '1.0.0' }, { onerror: undefined, ...options });
  s.tool('echo', { description: 'Echo' }, () => 'echoed');
  s.prompt('greet', { description: 'Greets' }, () => 'Say hello');
  s.resource('a', 'test://a', {}, () => 'a');
  s.resource('b', 'test://b', {}, () => 'b');
  return s;
}

const waiters = new WeakMap<Raw, Set<() => void>>();

function raw(server: McpServer): Raw {
  const c = connectRaw(server);
  opened.push(c);
  const set = new Set<() => void>();
  waiters.set(c, set);
  const record = c.client.fallbackNotificationHandler!;
  c.client.fallbackNotificationHandler = (params, info, method) => {
    void record(params, info, method);
    for (const wake of [...set]) wake();
  };
  return c;
}

/** Resolves once the raw client has received a notification matching `match` (bounded: 2 s). */
function received(c: Raw, match: (n: { method: string; params: JsonObject }) => boolean): Promise<void> {
  if (c.notifications.some(match)) return Promise.resolve();
  const set = waiters.get(c)!;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      set.delete(wake);
      reject(new Error('notification not received within 2 s'));
    }, 2_000);
    function wake(): void {
      if (!c.notifications.some(match)) return;
      clearTimeout(timer);
      set.delete(wake);
      resolve();
    }
    set.add(wake);
  });
}

function listenParams(filter: JsonObject): JsonObject {
  return { notifications: filter, _meta: meta() };
}

function forSubscription(c: Raw, id: number | string): { method: string; params: JsonObject }[] {
  return c.notifications.filter((n) => (n.params._meta as JsonObject | undefined)?.[SUB] === id);
}

/** Responses the server wrote for request `id`. */
function responsesFor(c: Raw, id: number | string): JsonRpcMessage[] {
  return c.written.filter((m) => 'id' in m && m.id === id && !('method' in m));
}

describe('subscriptions/listen (memory)', () => {
  test('acknowledged first with the honoured subset; then only opted-in types, each tagged', async () => {
    const server = build();
    const c = raw(server);
    const pending = c.client.request(
      'subscriptions/listen',
      listenParams({ toolsListChanged: true, resourceSubscriptions: ['test://a'] }),
    );
    pending.catch(() => undefined);
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    const ack = c.notifications[0]!;
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    const id = (ack.params._meta as JsonObject)[SUB] as number;
    expect(ack.params.notifications).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://a'] });

    // Not opted into: prompts, test://b. Sent before the opted-in ones, so their absence is
    // proven once the later notifications have arrived (one ordered channel).
    server.prompt('later', { description: 'x' }, () => 'x');
    await server.notifyResourceUpdated('test://b');
    await server.notifyResourceUpdated('test://a');
    server.tool('added', { description: 'x' }, () => 'x');
    await received(c, (n) => n.method === 'notifications/tools/list_changed');

    const mine = forSubscription(c, id);
    expect(mine.map((n) => n.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      'notifications/tools/list_changed',
    ]);
    expect(mine[1]!.params.uri).toBe('test://a');
    expect(c.notifications).toHaveLength(3);
    expect(responsesFor(c, id)).toHaveLength(0);
  });

  test('resource registration reaches a listen that opted into resourcesListChanged', async () => {
    const server = build();
    const c = raw(server);
    void c.client
      .request('subscriptions/listen', listenParams({ resourcesListChanged: true }))
      .catch(() => undefined);
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    server.resource('c', 'test://c', {}, () => 'c');
    await received(c, (n) => n.method === 'notifications/resources/list_changed');
    expect(c.notifications.map((n) => n.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/list_changed',
    ]);
  });

  test('several changes in one tick: one list_changed per subscription', async () => {
    const server = build();
    const c = raw(server);
    void c.client
      .request('subscriptions/listen', listenParams({ toolsListChanged: true }))
      .catch(() => undefined);
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    const one = server.tool('one', { description: 'x' }, () => 'x');
    server.tool('two', { description: 'x' }, () => 'x');
    one.disable();
    await received(c, (n) => n.method === 'notifications/tools/list_changed');
    // A later change after the batch proves no second notification of the batch is on its way.
    await server.notifyResourceUpdated('test://a'); // not opted into: never sent
    server.tool('three', { description: 'x' }, () => 'x');
    await received(c, (n) => n.method === 'notifications/tools/list_changed' && c.notifications.length >= 3);
    expect(c.notifications.map((n) => n.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
    ]);
  });

  test('server close: queued notifications, then exactly one graceful result, then the stdio-style cancel', async () => {
    const server = build();
    const c = raw(server);
    const pending = c.client.request(
      'subscriptions/listen',
      listenParams({ resourceSubscriptions: ['test://a'] }),
    );
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    const id = (c.notifications[0]!.params._meta as JsonObject)[SUB] as number;
    void server.notifyResourceUpdated('test://a');
    await server.close();
    const result = await pending;
    expect(result).toEqual({
      resultType: 'complete',
      _meta: { [SUB]: id, 'io.modelcontextprotocol/serverInfo': { name: 'subs', version: '1.0.0' } },
    });
    const kinds = c.written.map((m) =>
      'method' in m ? m.method : 'result' in m ? `result:${String(m.id)}` : `error:${String(m.id)}`,
    );
    expect(kinds).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      `result:${id}`,
      'notifications/cancelled',
    ]);
    const cancel = c.written[3] as { params: JsonObject };
    expect(cancel.params.requestId).toBe(id);
  });

  test('endSubscriptions ends every listen gracefully and keeps the connection serving', async () => {
    const server = build();
    const c = raw(server);
    const first = c.client.request('subscriptions/listen', listenParams({ toolsListChanged: true }));
    const second = c.client.request('subscriptions/listen', listenParams({ promptsListChanged: true }));
    await received(c, () => c.notifications.length === 2);
    await server.server.endSubscriptions();
    expect((await first)._meta).toMatchObject({ [SUB]: expect.any(Number) });
    expect((await second)._meta).toMatchObject({ [SUB]: expect.any(Number) });
    const after = await c.modern('tools/call', { name: 'echo' });
    expect(after.content).toEqual([{ type: 'text', text: 'echoed' }]);
    // Ended: a change reaches nobody.
    const before = c.notifications.length;
    server.tool('late', { description: 'x' }, () => 'x');
    await c.modern('tools/list'); // a round trip after the change
    expect(c.notifications).toHaveLength(before);
  });

  test('client cancel (notifications/cancelled): no response, nothing more for it', async () => {
    const server = build();
    const c = raw(server);
    const controller = new AbortController();
    const pending = c.client.request('subscriptions/listen', listenParams({ toolsListChanged: true }), {
      signal: controller.signal,
    });
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    const id = (c.notifications[0]!.params._meta as JsonObject)[SUB] as number;
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The server processed the cancel once a later request on the same channel is answered.
    await c.modern('tools/list');
    expect(server.server.listens.size).toBe(0);
    server.tool('after-cancel', { description: 'x' }, () => 'x');
    await c.modern('tools/list');
    expect(forSubscription(c, id)).toHaveLength(1); // the acknowledgement only
    expect(responsesFor(c, id)).toHaveLength(0);
    await server.close();
    expect(c.written.filter((m) => 'method' in m && m.method === 'notifications/cancelled')).toHaveLength(0);
  });

  test('a filter the server cannot honour at all: acknowledged empty, then ended at once', async () => {
    const server = new McpServer({ name: 'bare', version: '1' }, { onerror: undefined });
    server.tool('echo', { description: 'Echo' }, () => 'e');
    const c = raw(server);
    const result = await c.client.request('subscriptions/listen', listenParams({ promptsListChanged: true }));
    expect(result.resultType).toBe('complete');
    expect(c.notifications).toHaveLength(1);
    expect(c.notifications[0]!.params.notifications).toEqual({});
  });

  test('listChanged: false in the options is not honoured', async () => {
    const server = build({ capabilities: { tools: { listChanged: false } } });
    const c = raw(server);
    void c.client
      .request('subscriptions/listen', listenParams({ toolsListChanged: true, promptsListChanged: true }))
      .catch(() => undefined);
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    expect(c.notifications[0]!.params.notifications).toEqual({ promptsListChanged: true });
  });

  test.each([
    ['no notifications', {}],
    ['notifications not an object', { notifications: [true] }],
    ['a flag that is not a boolean', { notifications: { toolsListChanged: 'yes' } }],
    ['resourceSubscriptions not an array', { notifications: { resourceSubscriptions: 'test://a' } }],
    ['a URI that is not a string', { notifications: { resourceSubscriptions: ['test://a', 7] } }],
    ['an empty URI', { notifications: { resourceSubscriptions: [''] } }],
  ])('bad filter (%s): -32602, nothing else written', async (_name, params) => {
    const c = raw(build());
    await expect(
      c.client.request('subscriptions/listen', { ...params, _meta: meta() }),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect(c.notifications).toHaveLength(0);
  });

  test('over the limit: -32010, the others untouched', async () => {
    const server = build({ maxSubscriptions: 1 });
    const c = raw(server);
    void c.client
      .request('subscriptions/listen', listenParams({ toolsListChanged: true }))
      .catch(() => undefined);
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    await expect(
      c.client.request('subscriptions/listen', listenParams({ toolsListChanged: true })),
    ).rejects.toMatchObject({ code: ErrorCode.ServerBusy });
    expect(server.server.listens.size).toBe(1);
  });

  test('maxSubscriptions must be a positive integer', () => {
    expect(() => build({ maxSubscriptions: 0 })).toThrow(RangeError);
    expect(() => build({ maxSubscriptions: 1.5 })).toThrow(RangeError);
  });

  test('a client cancel right behind a graceful end: at most one response, the connection keeps serving', async () => {
    const server = build();
    const c = raw(server);
    const controller = new AbortController();
    const pending = c.client.request('subscriptions/listen', listenParams({ toolsListChanged: true }), {
      signal: controller.signal,
    });
    pending.catch(() => undefined);
    await received(c, (n) => n.method === 'notifications/subscriptions/acknowledged');
    const id = (c.notifications[0]!.params._meta as JsonObject)[SUB] as number;
    const ending = server.endSubscriptions();
    controller.abort();
    await ending;
    await c.modern('tools/list');
    expect(responsesFor(c, id).length).toBeLessThanOrEqual(1);
    expect(server.server.listens.size).toBe(0);
  });

  test('server/discover now promises listChanged and subscribe', async () => {
    const c = raw(build());
    const result = await c.modern('server/discover');
    expect(result.capabilities).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
  });
});

describe('subscriptions/listen on a legacy connection', () => {
  let legacy: Connected | undefined;
  afterEach(async () => {
    await legacy?.close();
    legacy = undefined;
  });

  test('stays unknown (-32601), and legacy list_changed is unchanged', async () => {
    legacy = await connect(build());
    await expect(
      legacy.client.request('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ).rejects.toMatchObject({ code: ErrorCode.MethodNotFound });
  });
});
