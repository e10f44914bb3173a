/**
 * Issue 10, lifecycle scenario 23 over real stdio (a child running the built package,
 * fixtures/subscriptions-stdio-server.mjs): a `subscriptions/listen` is acknowledged first, gets
 * only the types it opted into, each tagged; (a) the client's `notifications/cancelled` ends it with
 * no response and nothing more for it; (b) a graceful end (server shutdown, endSubscriptions) sends
 * the queued notifications, exactly one final result, then `notifications/cancelled` naming it;
 * (c) a dropped transport is "lost" for the client, distinct from graceful, and nothing re-listens.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { ConnectionClosedError, Connection, type JsonObject, type JsonRpcMessage } from 'keel-mcp/core';
import { listen, type ListenHost, type SubscriptionNotification, McpClient } from 'keel-mcp/client';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  CHILD_TEST_TIMEOUT_MS,
  endAndExpectCleanExit,
  RawServer,
  useChildCleanup,
  WAIT_MS,
  type Json,
} from '../stdio/helpers.js';
import { meta } from './harness.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const SCRIPT = join(import.meta.dirname, 'fixtures', 'subscriptions-stdio-server.mjs');
const SUB = 'io.modelcontextprotocol/subscriptionId';

let next = 0;
function call(server: RawServer, name: string, args: Json = {}): Promise<Json> {
  const id = `c${++next}`;
  server.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta() } });
  return server.response(id);
}

function openListen(server: RawServer, id: string, notifications: Json): Promise<Json> {
  server.send({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications, _meta: meta() },
  });
  return server.waitFor(
    (m) => m.method === 'notifications/subscriptions/acknowledged' && m.params?._meta?.[SUB] === id,
    `acknowledgement of ${id}`,
  );
}

/** Everything the server wrote that belongs to subscription `id` (tagged, its response, its cancel). */
function of(server: RawServer, id: string): Json[] {
  return server.messages.filter(
    (m) =>
      m.params?._meta?.[SUB] === id ||
      (m.id === id && ('result' in m || 'error' in m)) ||
      (m.method === 'notifications/cancelled' && m.params?.requestId === id),
  );
}

function kinds(messages: Json[]): string[] {
  return messages.map((m) => (m.method as string | undefined) ?? ('result' in m ? 'result' : 'error'));
}

describe('subscriptions/listen over stdio (raw wire)', () => {
  test('ack first, only opted-in types; (a) client cancel: no response, nothing after it', async () => {
    const server = new RawServer(SCRIPT);
    const ack = await openListen(server, 'L1', {
      toolsListChanged: true,
      resourceSubscriptions: ['test://a'],
    });
    expect(ack.params.notifications).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://a'] });
    expect(of(server, 'L1')).toHaveLength(1); // nothing for it before the acknowledgement

    await call(server, 'touch', { uri: 'test://b' }); // not opted into
    await call(server, 'add_prompt', { name: 'p1' }); // not opted into
    await call(server, 'touch', { uri: 'test://a' });
    await call(server, 'add_tool', { name: 't1' });
    await server.waitFor(
      (m) => m.method === 'notifications/tools/list_changed' && m.params?._meta?.[SUB] === 'L1',
      'tools list_changed on L1',
    );
    expect(kinds(of(server, 'L1'))).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      'notifications/tools/list_changed',
    ]);
    expect(of(server, 'L1')[1]!.params.uri).toBe('test://a');
    // Change notifications go only to subscriptions: nothing untagged.
    expect(
      server.messages.filter((m) => m.method?.endsWith('list_changed') && !m.params?._meta?.[SUB]),
    ).toEqual([]);

    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L1' } });
    // The cancel is processed before the next request on the same channel.
    await call(server, 'add_tool', { name: 't2' });
    await call(server, 'touch', { uri: 'test://a' });
    expect(of(server, 'L1')).toHaveLength(3);
    expect(server.responsesFor('L1')).toHaveLength(0);
    await endAndExpectCleanExit(server);
    expect(server.responsesFor('L1')).toHaveLength(0);
  });

  test('(b) shutdown (SIGTERM): queued notification, exactly one final result, then notifications/cancelled', async () => {
    const server = new RawServer(SCRIPT);
    await openListen(server, 'L2', { resourceSubscriptions: ['test://a'] });
    await openListen(server, 'L3', { promptsListChanged: true });
    await call(server, 'touch', { uri: 'test://a' });
    server.child.kill('SIGTERM');
    const exit = await within(server.exited, WAIT_MS, 'exit after SIGTERM');
    expect(exit.code).toBe(0);
    expect(kinds(of(server, 'L2'))).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      'result',
      'notifications/cancelled',
    ]);
    const [, , result] = of(server, 'L2');
    expect(result!.result).toEqual({
      resultType: 'complete',
      _meta: { [SUB]: 'L2', 'io.modelcontextprotocol/serverInfo': { name: 'subs-stdio', version: '1.0.0' } },
    });
    expect(kinds(of(server, 'L3'))).toEqual([
      'notifications/subscriptions/acknowledged',
      'result',
      'notifications/cancelled',
    ]);
    expect(server.stderr).toContain('SUBS exited cleanly');
  });
});

describe('subscriptions/listen over stdio: the transport drops', () => {
  test('(c) EOF with a live listen: exit 0, nothing written for it after the acknowledgement', async () => {
    const server = new RawServer(SCRIPT);
    await openListen(server, 'L4', { toolsListChanged: true });
    await endAndExpectCleanExit(server);
    expect(of(server, 'L4')).toHaveLength(1);
  });
});

/** A low-level client connection that writes the modern `_meta` itself (the client's era logic is not involved). */
function stdioClient(): {
  host: ListenHost;
  connection: Connection;
  sent: JsonRpcMessage[];
  transport: StdioClientTransport;
} {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SCRIPT], stderr: 'ignore' });
  const sent: JsonRpcMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message: JsonRpcMessage) => {
    sent.push(message);
    return send(message);
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
  return { host, connection, sent, transport };
}

function call2(host: ListenHost, name: string, args: JsonObject = {}): Promise<JsonObject> {
  return host.request('tools/call', { name, arguments: args }, { timeoutMs: WAIT_MS });
}

describe('Subscription (client) over stdio', () => {
  test('(b) graceful: buffered notifications drain, iteration completes, ended says graceful', async () => {
    const { host, connection } = stdioClient();
    try {
      const subscription = listen(host, { toolsListChanged: true, promptsListChanged: false });
      expect(await within(subscription.acknowledged, WAIT_MS, 'ack')).toEqual({ toolsListChanged: true });
      await call2(host, 'add_tool', { name: 'x1' });
      await call2(host, 'add_prompt', { name: 'p1' }); // not opted into
      await call2(host, 'end_subscriptions');
      const seen: SubscriptionNotification[] = [];
      for await (const note of subscription) seen.push(note);
      expect(seen.map((n) => n.method)).toEqual(['notifications/tools/list_changed']);
      expect(seen[0]!.params._meta).toEqual({ [SUB]: subscription.id });
      const end = await subscription.ended;
      expect(end.reason).toBe('graceful');
      expect(end.reason === 'graceful' && end.result._meta[SUB]).toBe(subscription.id);
    } finally {
      await connection.close();
    }
  });

  test('(a) close(): ended says closed, one notifications/cancelled sent, nothing more delivered', async () => {
    const { host, connection, sent } = stdioClient();
    try {
      const subscription = listen(host, { toolsListChanged: true });
      await within(subscription.acknowledged, WAIT_MS, 'ack');
      expect(await subscription.close()).toEqual({ reason: 'closed' });
      const cancels = sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled');
      expect(cancels).toHaveLength(1);
      expect((cancels[0] as { params: JsonObject }).params.requestId).toBe(subscription.id);
      await call2(host, 'add_tool', { name: 'after' });
      const seen: SubscriptionNotification[] = [];
      for await (const note of subscription) seen.push(note);
      expect(seen).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  test('breaking out of the loop cancels the subscription', async () => {
    const { host, connection, sent } = stdioClient();
    try {
      const subscription = listen(host, { toolsListChanged: true });
      await within(subscription.acknowledged, WAIT_MS, 'ack');
      await call2(host, 'add_tool', { name: 'one' });
      for await (const note of subscription) {
        expect(note.method).toBe('notifications/tools/list_changed');
        break;
      }
      expect(await within(subscription.ended, WAIT_MS, 'end')).toEqual({ reason: 'closed' });
      expect(sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled')).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });

  test('(c) the server process dies: lost (ConnectionClosedError), distinct from graceful, no re-listen', async () => {
    const { host, connection, sent, transport } = stdioClient();
    try {
      const subscription = listen(host, { toolsListChanged: true });
      await within(subscription.acknowledged, WAIT_MS, 'ack');
      process.kill(transport.pid!, 'SIGKILL');
      const end = await within(subscription.ended, WAIT_MS, 'end');
      expect(end.reason).toBe('lost');
      expect(end.reason === 'lost' && end.error).toBeInstanceOf(ConnectionClosedError);
      await expect(
        (async () => {
          for await (const _note of subscription) void _note;
        })(),
      ).rejects.toBeInstanceOf(ConnectionClosedError);
      expect(sent.filter((m) => 'method' in m && m.method === 'subscriptions/listen')).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });
});

describe('McpClient.listen over stdio (the client speaks 2026-07-28 on its own)', () => {
  test('era auto: listen, a change made by a call, a graceful end by the server', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SCRIPT],
      stderr: 'ignore',
    });
    const client = await McpClient.connect(transport, { timeoutMs: WAIT_MS });
    try {
      expect(client.era).toBe('modern');
      const subscription = client.listen({ toolsListChanged: true });
      expect(await within(subscription.acknowledged, WAIT_MS, 'ack')).toEqual({ toolsListChanged: true });
      await client.callTool('add_tool', { name: 'by_client' });
      await client.callTool('end_subscriptions');
      const seen: string[] = [];
      for await (const note of subscription) seen.push(note.method);
      expect(seen).toEqual(['notifications/tools/list_changed']);
      expect((await subscription.ended).reason).toBe('graceful');
    } finally {
      await client.close();
    }
  });
});
