/**
 * Review fix (brief SF item 4): `subscriptions/listen` cannot exhaust the server. The URIs of one
 * listen are capped (`maxResourceSubscriptions`, default 1,000: `-32602` naming the cap, before
 * any URI is read) and matched through a Set; open listens are capped per client
 * (`maxSubscriptionsPerClient`, default 16: `-32010`) beside the server-wide `maxSubscriptions`.
 * A client is the authenticated principal when there is one (over HTTP every request is its own
 * connection), else the connection.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS } from '../../src/server/modern/subscriptions/listen-filter.js';
import { DEFAULT_MAX_SUBSCRIPTIONS_PER_CLIENT } from '../../src/server/modern/subscriptions/listen-hub.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectRaw, meta, type Raw } from './harness.js';

useProcessGuard();
const opened: Raw[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await within(c.close(), 5_000, 'close');
});

const ACK = 'notifications/subscriptions/acknowledged';
const SUB = 'io.modelcontextprotocol/subscriptionId';

function build(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const s = new McpServer({ name: 'limits', version: '1' }, { onerror: undefined, ...options });
  s.tool('echo', { description: 'Echo' }, () => 'echoed');
  s.resource('a', 'test://a', {}, () => 'a');
  return s;
}

/** A raw modern client; with `subject`, every request carries that authenticated principal. */
function raw(server: McpServer, subject?: string): Raw {
  const c = connectRaw(server);
  opened.push(c);
  if (subject !== undefined) c.serverTransport.messageInfo = () => ({ authInfo: { token: 't', subject } });
  return c;
}

/** Open a listen and wait for its acknowledgement; the returned abort cancels it. */
async function openListen(c: Raw, filter: JsonObject): Promise<{ id: unknown; cancel: () => void }> {
  const controller = new AbortController();
  let id: unknown;
  const pending = c.client.request(
    'subscriptions/listen',
    { notifications: filter, _meta: meta() },
    {
      signal: controller.signal,
      timeoutMs: Infinity,
      maxTotalTimeoutMs: Infinity,
      onRequestId: (requestId) => void (id = requestId),
    },
  );
  pending.catch(() => undefined);
  // A round trip after it: the listen was handled (acknowledged or refused) by then.
  await c.modern('tools/list');
  const acked = c.notifications.some(
    (n) => n.method === ACK && (n.params._meta as JsonObject | undefined)?.[SUB] === id,
  );
  if (!acked) await pending; // rethrows the refusal
  return { id, cancel: () => controller.abort() };
}

function listen(c: Raw, filter: JsonObject): Promise<JsonObject> {
  return c.client.request(
    'subscriptions/listen',
    { notifications: filter, _meta: meta() },
    { timeoutMs: 5_000 },
  );
}

const uris = (n: number, prefix = 'test://u'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('resourceSubscriptions per listen (maxResourceSubscriptions)', () => {
  test('default 1,000: exactly the cap is acknowledged; one more is -32602 naming the cap, nothing written', async () => {
    expect(DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS).toBe(1_000);
    const c = raw(build());
    await openListen(c, { resourceSubscriptions: uris(1_000) });
    const before = c.notifications.length;
    await expect(listen(c, { resourceSubscriptions: uris(1_001) })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('at most 1000 per subscription (maxResourceSubscriptions)'),
    });
    expect(c.notifications).toHaveLength(before);
  });

  test('the length is checked before any URI is read', async () => {
    const c = raw(build({ maxResourceSubscriptions: 3 }));
    await expect(listen(c, { resourceSubscriptions: [1, 2, 3, 4] })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('holds 4 URIs; at most 3'),
    });
  });

  test('a listen watching many URIs gets the update of each it names, and of no other', async () => {
    const server = build();
    const c = raw(server);
    const watched = uris(1_000);
    const { id } = await openListen(c, { resourceSubscriptions: watched });
    await server.notifyResourceUpdated('test://u999');
    await server.notifyResourceUpdated('test://not-watched');
    await server.notifyResourceUpdated('test://u0');
    await c.modern('tools/list');
    const updates = c.notifications
      .filter((n) => n.method === 'notifications/resources/updated')
      .filter((n) => (n.params._meta as JsonObject)[SUB] === id)
      .map((n) => n.params.uri);
    expect(updates).toEqual(['test://u999', 'test://u0']);
  });
});

describe('open listens per client (maxSubscriptionsPerClient)', () => {
  test('per connection without authentication: the next is -32010; another connection is not affected', async () => {
    expect(DEFAULT_MAX_SUBSCRIPTIONS_PER_CLIENT).toBe(16);
    const server = build({ maxSubscriptionsPerClient: 2 });
    const a = raw(server);
    const first = await openListen(a, { toolsListChanged: true });
    await openListen(a, { toolsListChanged: true });
    await expect(listen(a, { toolsListChanged: true })).rejects.toMatchObject({
      code: ErrorCode.ServerBusy,
      message: expect.stringContaining('for this client (2, maxSubscriptionsPerClient)'),
    });
    const b = raw(server);
    await openListen(b, { toolsListChanged: true });
    expect(server.server.listens.size).toBe(3);
    // Closing one frees its place.
    first.cancel();
    await a.modern('tools/list');
    expect(server.server.listens.size).toBe(2);
    await openListen(a, { toolsListChanged: true });
    expect(server.server.listens.size).toBe(3);
  });

  test('per principal when there is one: the same user over several connections shares the limit', async () => {
    const server = build({ maxSubscriptionsPerClient: 2 });
    await openListen(raw(server, 'alice'), { toolsListChanged: true });
    await openListen(raw(server, 'alice'), { toolsListChanged: true });
    await expect(listen(raw(server, 'alice'), { toolsListChanged: true })).rejects.toMatchObject({
      code: ErrorCode.ServerBusy,
    });
    await openListen(raw(server, 'bob'), { toolsListChanged: true });
    expect(server.server.listens.size).toBe(3);
  });

  test('the server-wide limit still applies across clients', async () => {
    const server = build({ maxSubscriptions: 2, maxSubscriptionsPerClient: 2 });
    await openListen(raw(server, 'alice'), { toolsListChanged: true });
    await openListen(raw(server, 'bob'), { toolsListChanged: true });
    await expect(listen(raw(server, 'carol'), { toolsListChanged: true })).rejects.toMatchObject({
      code: ErrorCode.ServerBusy,
      message: expect.stringContaining('Too many open subscriptions (2)'),
    });
  });
});

test('the limits must be positive integers', () => {
  expect(() => build({ maxSubscriptionsPerClient: 0 })).toThrow(
    /maxSubscriptionsPerClient must be a positive integer/,
  );
  expect(() => build({ maxResourceSubscriptions: 1.5 })).toThrow(
    /maxResourceSubscriptions must be a positive integer/,
  );
  expect(() => build({ maxSubscriptions: -1 })).toThrow(/maxSubscriptions must be a positive integer/);
});
