/**
 * Issue 10, scenario 23 for the client over real HTTP: a {@link Subscription} on Keel's Streamable
 * HTTP client transport against Keel's server (serveHttp on 127.0.0.1). The modern `_meta` is
 * written by the test (the client's era logic is not involved). (a) close() closes the listen's
 * stream (no notification POSTed) and the server ends it; (b) a graceful end drains, completes and
 * says `graceful`; (c) a dropped connection says `lost`, and nothing listens again.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { Connection, ConnectionClosedError, type JsonObject, type JsonRpcMessage } from 'keel-mcp/core';
import { listen, type ListenHost, type SubscriptionNotification, McpClient } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { registerSubscriptionTools } from './fixtures/subscription-tools.mjs';
import { meta } from './harness.js';

useProcessGuard();

const SUB = 'io.modelcontextprotocol/subscriptionId';

interface Setup {
  serving: HttpServing;
  server: McpServer;
  connection: Connection;
  host: ListenHost;
  sent: JsonRpcMessage[];
  /** The `method` of every POST body the transport sent. */
  posted: string[];
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.connection.close();
  await current?.serving.close({ deadlineMs: 2_000 });
  current = undefined;
});

async function setup(): Promise<Setup> {
  const server = new McpServer({ name: 'subs-client-http', version: '1' }, { onerror: undefined });
  registerSubscriptionTools(server);
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0 });
  const posted: string[] = [];
  const transport = new StreamableHttpClientTransport(serving.url, {
    fetch: (input, init) => {
      if (init?.method === 'POST' && typeof init.body === 'string')
        posted.push(String((JSON.parse(init.body) as { method?: string }).method));
      return globalThis.fetch(input, init);
    },
  });
  const sent: JsonRpcMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const connection = new Connection(transport);
  void connection.start();
  const host: ListenHost = {
    connection,
    request: (method, params, options) =>
      connection.request(
        method,
        { ...params, _meta: { ...meta(), ...(params._meta as JsonObject) } },
        options,
      ),
  };
  current = { serving, server, connection, host, sent, posted };
  return current;
}

function listens(sent: JsonRpcMessage[]): JsonRpcMessage[] {
  return sent.filter((m) => 'method' in m && m.method === 'subscriptions/listen');
}

describe('Subscription (client) over HTTP', () => {
  test('(b) graceful: notifications, then the final result; iteration completes; ended says graceful', async () => {
    const { host, server } = await setup();
    const subscription = listen(host, { toolsListChanged: true, resourceSubscriptions: ['test://a'] });
    expect(await within(subscription.acknowledged, 5_000, 'ack')).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['test://a'],
    });
    await server.notifyResourceUpdated('test://b'); // not opted into
    await server.notifyResourceUpdated('test://a');
    server.tool('added', { description: 'x' }, () => 'x');
    const seen: SubscriptionNotification[] = [];
    for await (const note of subscription) {
      seen.push(note);
      if (seen.length === 2) void server.endSubscriptions();
    }
    expect(seen.map((n) => [n.method, n.params.uri])).toEqual([
      ['notifications/resources/updated', 'test://a'],
      ['notifications/tools/list_changed', undefined],
    ]);
    const end = await subscription.ended;
    expect(end.reason).toBe('graceful');
    expect(end.reason === 'graceful' && end.result._meta[SUB]).toBe(subscription.id);
  });

  test('(a) close(): the stream is closed (no notification POSTed), the server ends the listen', async () => {
    const { host, server, sent, posted } = await setup();
    const subscription = listen(host, { toolsListChanged: true });
    await within(subscription.acknowledged, 5_000, 'ack');
    const session = [...server.sessions].find((s) => s.era === 'modern')!;
    expect(await subscription.close()).toEqual({ reason: 'closed' });
    await within(session.closed, 5_000, 'the server side of the listen closes');
    expect(server.server.listens.size).toBe(0);
    // The engine's cancel went to the transport once, which closed the stream instead of POSTing it.
    expect(sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled')).toHaveLength(1);
    expect(posted).toEqual(['subscriptions/listen']);
  });

  test('(c) the connection drops: lost (ConnectionClosedError), not graceful; no re-listen', async () => {
    const { host, serving, sent } = await setup();
    const subscription = listen(host, { toolsListChanged: true });
    await within(subscription.acknowledged, 5_000, 'ack');
    serving.server.closeAllConnections();
    const end = await within(subscription.ended, 5_000, 'end');
    expect(end.reason).toBe('lost');
    expect(end.reason === 'lost' && end.error).toBeInstanceOf(ConnectionClosedError);
    await expect(
      (async () => {
        for await (const _note of subscription) void _note;
      })(),
    ).rejects.toBeInstanceOf(ConnectionClosedError);
    // The connection itself still works; nothing listened again.
    const answer = await host.request('tools/list', {}, { timeoutMs: 5_000 });
    expect(Array.isArray(answer.tools)).toBe(true);
    expect(listens(sent)).toHaveLength(1);
  });
});

describe('McpClient.listen over HTTP (the client speaks 2026-07-28 on its own)', () => {
  test('era auto: listen, a resource update, server shutdown ends it gracefully', async () => {
    const { serving, server } = await setup();
    const client = await McpClient.connect(new StreamableHttpClientTransport(serving.url), {
      timeoutMs: 5_000,
    });
    try {
      expect(client.era).toBe('modern');
      const subscription = client.listen({ resourceSubscriptions: ['test://a'] });
      await within(subscription.acknowledged, 5_000, 'ack');
      await client.callTool('touch', { uri: 'test://a' });
      const ending = server.close();
      const seen: SubscriptionNotification[] = [];
      for await (const note of subscription) seen.push(note);
      await ending;
      expect(seen.map((n) => n.params.uri)).toEqual(['test://a']);
      expect((await subscription.ended).reason).toBe('graceful');
    } finally {
      await client.close();
    }
  });
});
