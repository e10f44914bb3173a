/**
 * Issue 10: the client's {@link Subscription} over the memory transport, against Keel's server and
 * against a hand-written server: the graceful result followed by the stdio teardown cancel is
 * graceful; a server's `notifications/cancelled` without a final result is lost; a refused listen
 * is lost with the server's error; the acknowledgement is not iterated; identical unread
 * notifications are kept once.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { Connection, CancelledByPeerError, ErrorCode, McpError, type JsonObject } from 'keel-mcp/core';
import { listen, type ListenHost, type SubscriptionNotification } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { meta } from './harness.js';

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

useProcessGuard();

const SUB = 'io.modelcontextprotocol/subscriptionId';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function hostOver(connection: Connection): ListenHost {
  return {
    connection,
    request: (method, params, options) =>
      connection.request(
        method,
        { ...params, _meta: { ...meta(), ...(params._meta as JsonObject) } },
        options,
      ),
  };
}

/** A client connection to a Keel McpServer over memory. */
function keel(server: McpServer): ListenHost {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const connection = new Connection(clientSide);
  void connection.start();
  closers.push(async () => {
    await connection.close();
    await session.closed;
  });
  return hostOver(connection);
}

/** A client connection to a hand-written server: `onListen` gets each listen's context. */
function fake(
  onListen: (server: Connection, id: string | number, signal: AbortSignal) => Promise<JsonObject>,
): ListenHost {
  const [clientSide, serverSide] = createMemoryPair();
  const server = new Connection(serverSide);
  server.setRequestHandler('ping', () => ({}));
  server.setRequestHandler('subscriptions/listen', (_params, ctx) => onListen(server, ctx.id, ctx.signal));
  void server.start();
  const connection = new Connection(clientSide);
  void connection.start();
  closers.push(async () => {
    await connection.close();
    await server.close();
  });
  return hostOver(connection);
}

function ack(server: Connection, id: string | number, notifications: JsonObject): Promise<void> {
  return server.notify(
    'notifications/subscriptions/acknowledged',
    { notifications, _meta: { [SUB]: id } },
    id,
  );
}

describe('Subscription (client, memory)', () => {
  test('the final result followed by notifications/cancelled (Keel on stdio) is graceful', async () => {
    const server = new McpServer({ name: 'm', version: '1' }, { onerror: undefined });
    server.tool('echo', { description: 'e' }, () => 'e');
    const subscription = listen(keel(server), { toolsListChanged: true });
    await within(subscription.acknowledged, 5_000, 'ack');
    server.tool('more', { description: 'm' }, () => 'm');
    await server.endSubscriptions();
    const seen: SubscriptionNotification[] = [];
    for await (const note of subscription) seen.push(note);
    expect(seen.map((n) => n.method)).toEqual(['notifications/tools/list_changed']);
    expect((await within(subscription.ended, 5_000, 'end')).reason).toBe('graceful');
  });

  test('a server cancel without a final result: lost (CancelledByPeerError), iteration throws', async () => {
    let serverSignal: AbortSignal | undefined;
    const host = fake(async (server, id, signal) => {
      serverSignal = signal;
      await ack(server, id, { toolsListChanged: true });
      await server.notify('notifications/cancelled', { requestId: id, reason: 'going away' });
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return {};
    });
    const subscription = listen(host, { toolsListChanged: true });
    const end = await within(subscription.ended, 5_000, 'end');
    expect(end.reason).toBe('lost');
    expect(end.reason === 'lost' && end.error).toBeInstanceOf(CancelledByPeerError);
    await expect(
      (async () => {
        for await (const _note of subscription) void _note;
      })(),
    ).rejects.toBeInstanceOf(CancelledByPeerError);
    // The pending request was given up (the fake server saw our cancel).
    expect(serverSignal?.aborted).toBe(true);
  });

  test('a refused listen is lost with the server error; acknowledged rejects', async () => {
    const host = fake(() => Promise.reject(new McpError(ErrorCode.InvalidParams, 'bad filter')));
    const subscription = listen(host, { toolsListChanged: true });
    const end = await within(subscription.ended, 5_000, 'end');
    expect(end.reason === 'lost' && end.error).toMatchObject({ code: ErrorCode.InvalidParams });
    await expect(subscription.acknowledged).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  test('unread identical notifications are kept once; the acknowledgement is not iterated', async () => {
    const release = deferred();
    const sent = deferred();
    const host = fake(async (server, id) => {
      await ack(server, id, { toolsListChanged: true, resourceSubscriptions: ['a://x', 'a://y'] });
      const tag = { _meta: { [SUB]: id } };
      await server.notify('notifications/tools/list_changed', tag, id);
      await server.notify('notifications/tools/list_changed', tag, id);
      await server.notify('notifications/resources/updated', { uri: 'a://x', ...tag }, id);
      await server.notify('notifications/resources/updated', { uri: 'a://y', ...tag }, id);
      await server.notify('notifications/resources/updated', { uri: 'a://x', ...tag }, id);
      sent.resolve();
      await release.promise;
      return { _meta: { [SUB]: id } };
    });
    const subscription = listen(host, { toolsListChanged: true });
    await within(subscription.acknowledged, 5_000, 'ack');
    await within(sent.promise, 5_000, 'all sent');
    // A round trip on the same ordered channel: every notification has arrived, none was read.
    await host.connection.request('ping', {}, { timeoutMs: 5_000 });
    const seen: string[] = [];
    for await (const note of subscription) {
      seen.push(`${note.method} ${typeof note.params.uri === 'string' ? note.params.uri : ''}`);
      if (seen.length === 3) release.resolve();
    }
    expect(seen).toEqual([
      'notifications/tools/list_changed ',
      'notifications/resources/updated a://x',
      'notifications/resources/updated a://y',
    ]);
    expect((await subscription.ended).reason).toBe('graceful');
  });

  test('an aborted signal option closes it', async () => {
    const server = new McpServer({ name: 'm', version: '1' }, { onerror: undefined });
    server.tool('echo', { description: 'e' }, () => 'e');
    const controller = new AbortController();
    const subscription = listen(keel(server), { toolsListChanged: true }, { signal: controller.signal });
    await within(subscription.acknowledged, 5_000, 'ack');
    controller.abort();
    expect(await within(subscription.ended, 5_000, 'end')).toEqual({ reason: 'closed' });
  });
});
