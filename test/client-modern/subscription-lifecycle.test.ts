/**
 * Review fixes (brief F2 items 2-4) of the client `Subscription`: it removes its abort listener from
 * the caller's signal when it ends; one reader at a time (a second iterator throws at once, and no
 * reader hangs after close or the end); closing the client (or its connection) ends live
 * subscriptions `closed`, while a dropped connection ends them `lost`.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, test } from 'vitest';
import { listen, type ListenHost, type SubscriptionNotification } from 'keel-mcp/client';
import { Connection, ConnectionClosedError, McpError, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { keelServer, useModern } from './helpers.js';

useProcessGuard();
const { connect } = useModern();

const SUB = 'io.modelcontextprotocol/subscriptionId';
const META: JsonObject = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await within(close(), 5_000, 'close');
});

interface Fake {
  host: ListenHost;
  client: Connection;
  server: Connection;
  /** Send `notifications/resources/updated` for `uri` on every live listen. */
  update: (uri: string) => Promise<void>;
  /** Answer every live listen with its final result (a graceful end). */
  finish: () => void;
  /** The transport drops (no answer from the server for anything). */
  drop: () => Promise<void>;
}

/** A hand-written server whose listens acknowledge, then wait for a cancel or {@link Fake.finish}. */
function fake(): Fake {
  const [clientSide, serverSide] = createMemoryPair();
  const server = new Connection(serverSide);
  const live = new Map<string | number, () => void>();
  server.setRequestHandler('subscriptions/listen', async (params, ctx) => {
    await server.notify(
      'notifications/subscriptions/acknowledged',
      { notifications: params.notifications as JsonObject, _meta: { [SUB]: ctx.id } },
      ctx.id,
    );
    await new Promise<void>((resolve) => {
      live.set(ctx.id, resolve);
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    live.delete(ctx.id);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return { resultType: 'complete' };
  });
  void server.start();
  const client = new Connection(clientSide);
  void client.start();
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  const host: ListenHost = {
    connection: client,
    request: (method, params, options) =>
      client.request(method, { ...params, _meta: { ...META, ...(params._meta as JsonObject) } }, options),
  };
  return {
    host,
    client,
    server,
    update: async (uri) => {
      for (const id of live.keys())
        await server.notify('notifications/resources/updated', { uri, _meta: { [SUB]: id } }, id);
    },
    finish: () => {
      for (const resolve of live.values()) resolve();
    },
    drop: () => serverSide.close(),
  };
}

const FILTER = { resourceSubscriptions: ['a://x'] };

describe('the signal option', () => {
  test('50 subscriptions on one long-lived signal leave no abort listener behind', async () => {
    const { host, finish } = fake();
    const app = new AbortController();
    for (let i = 0; i < 25; i++) {
      const closed = listen(host, FILTER, { signal: app.signal });
      await within(closed.acknowledged, 5_000, 'ack');
      expect((await within(closed.close(), 5_000, 'close')).reason).toBe('closed');
      const graceful = listen(host, FILTER, { signal: app.signal });
      await within(graceful.acknowledged, 5_000, 'ack');
      finish();
      expect((await within(graceful.ended, 5_000, 'end')).reason).toBe('graceful');
    }
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
  });

  test('a live subscription keeps exactly one listener, and aborting the signal still closes it', async () => {
    const { host } = fake();
    const app = new AbortController();
    const subscription = listen(host, FILTER, { signal: app.signal });
    await within(subscription.acknowledged, 5_000, 'ack');
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(1);
    app.abort();
    expect((await within(subscription.ended, 5_000, 'end')).reason).toBe('closed');
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
  });
});

describe('one reader at a time', () => {
  test('a second iterator while the first is live throws a TypeError at once', async () => {
    const { host, update } = fake();
    const subscription = listen(host, FILTER);
    await within(subscription.acknowledged, 5_000, 'ack');
    const first = subscription[Symbol.asyncIterator]();
    expect(() => subscription[Symbol.asyncIterator]()).toThrow(TypeError);
    expect(() => subscription[Symbol.asyncIterator]()).toThrow(/already has a reader/);
    const next = first.next();
    await update('a://1');
    expect(await within(next, 5_000, 'next')).toMatchObject({
      done: false,
      value: { params: { uri: 'a://1' } },
    });
    await subscription.close();
  });

  test('the waiting reader completes on close(); after the end another reader gets done at once', async () => {
    const { host } = fake();
    const subscription = listen(host, FILTER);
    await within(subscription.acknowledged, 5_000, 'ack');
    const first = subscription[Symbol.asyncIterator]();
    const waiting = first.next();
    expect(() => subscription[Symbol.asyncIterator]()).toThrow(TypeError);
    await subscription.close();
    expect(await within(waiting, 5_000, 'first reader')).toEqual({ done: true, value: undefined });
    const second = subscription[Symbol.asyncIterator]();
    expect(await within(second.next(), 5_000, 'second reader')).toEqual({ done: true, value: undefined });
  });

  test('a reader given up before its first next() frees the place', async () => {
    const { host, update } = fake();
    const subscription = listen(host, FILTER);
    await within(subscription.acknowledged, 5_000, 'ack');
    await subscription[Symbol.asyncIterator]().return?.();
    const notes: SubscriptionNotification[] = [];
    const reading = (async () => {
      for await (const note of subscription) {
        notes.push(note);
        break;
      }
    })();
    await update('a://2');
    await within(reading, 5_000, 'loop');
    expect(notes.map((n) => n.params.uri)).toEqual(['a://2']);
    // Leaving the loop early closed it.
    expect((await within(subscription.ended, 5_000, 'end')).reason).toBe('closed');
  });
});

describe('closing the client is not a loss', () => {
  test('connection.close(): the loop completes without throwing, ended is closed', async () => {
    const { host, client } = fake();
    const subscription = listen(host, FILTER);
    await within(subscription.acknowledged, 5_000, 'ack');
    const loop = (async () => {
      for await (const _note of subscription) {
        // nothing comes
      }
      return 'completed';
    })();
    await client.close();
    expect(await within(loop, 5_000, 'loop')).toBe('completed');
    expect(await subscription.ended).toEqual({ reason: 'closed' });
  });

  test('McpClient.close() ends a live listen closed', async () => {
    const { client } = await connect(keelServer());
    expect(client.era).toBe('modern');
    const subscription = client.listen({ toolsListChanged: true });
    await within(subscription.acknowledged, 5_000, 'ack');
    await client.close();
    expect(await within(subscription.ended, 5_000, 'end')).toEqual({ reason: 'closed' });
  });

  test('a dropped transport (EOF) still ends it lost, and the loop throws', async () => {
    const { host, drop } = fake();
    const subscription = listen(host, FILTER);
    await within(subscription.acknowledged, 5_000, 'ack');
    const loop = (async () => {
      for await (const _note of subscription) {
        // nothing comes
      }
    })();
    await drop();
    await expect(within(loop, 5_000, 'loop')).rejects.toBeInstanceOf(ConnectionClosedError);
    const end = await subscription.ended;
    expect(end.reason).toBe('lost');
    expect(end.reason === 'lost' && end.error).toBeInstanceOf(ConnectionClosedError);
  });

  test('the server closing ends it lost with its -32000 answer', async () => {
    const { host, server } = fake();
    const subscription = listen(host, FILTER);
    await within(subscription.acknowledged, 5_000, 'ack');
    await server.close();
    const end = await within(subscription.ended, 5_000, 'end');
    expect(end.reason).toBe('lost');
    expect(end.reason === 'lost' && end.error).toBeInstanceOf(McpError);
  });
});
