/**
 * Brief PO item 2: a subscription whose iterator is not read keeps at most `maxBuffered` distinct
 * notifications. One more ends it `lost` with `SubscriptionOverflowError` and cancels it on the
 * wire; what was buffered is still iterated before the error. The default covers every distinct
 * notification the filter allows, so a server that keeps to the filter never overflows it.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_MAX_BUFFERED, listen, SubscriptionOverflowError, type ListenHost } from 'keel-mcp/client';
import { Connection, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const SUB = 'io.modelcontextprotocol/subscriptionId';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await within(close(), 5_000, 'close');
});

interface Fake {
  host: ListenHost;
  /** Settles once the client cancelled the listen. */
  cancelled: Promise<void>;
  /** Settles once every notification was sent. */
  sent: Promise<void>;
}

/**
 * A hand-written server whose listen acknowledges, sends `notes` resources/updated for distinct
 * URIs (plus the three list kinds), then waits for the client's cancel.
 */
function fake(notes: number): Fake {
  let cancelledResolve!: () => void;
  const cancelled = new Promise<void>((resolve) => (cancelledResolve = resolve));
  let sentResolve!: () => void;
  const sent = new Promise<void>((resolve) => (sentResolve = resolve));
  const [clientSide, serverSide] = createMemoryPair();
  const server = new Connection(serverSide);
  server.setRequestHandler('subscriptions/listen', async (params, ctx) => {
    const tag = { _meta: { [SUB]: ctx.id } };
    await server.notify(
      'notifications/subscriptions/acknowledged',
      { notifications: params.notifications as JsonObject, ...tag },
      ctx.id,
    );
    for (const kind of ['tools', 'prompts', 'resources'])
      await server.notify(`notifications/${kind}/list_changed`, tag, ctx.id);
    for (let i = 0; i < notes; i++)
      await server.notify('notifications/resources/updated', { uri: `a://${i}`, ...tag }, ctx.id);
    sentResolve();
    if (!ctx.signal.aborted)
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    cancelledResolve();
    return { _meta: { [SUB]: ctx.id } };
  });
  server.setRequestHandler('ping', () => ({}));
  void server.start();
  const connection = new Connection(clientSide);
  void connection.start();
  closers.push(async () => {
    await connection.close();
    await server.close();
  });
  return { host: { connection, request: (m, p, o) => connection.request(m, p, o) }, cancelled, sent };
}

const uris = (n: number): string[] => Array.from({ length: n }, (_, i) => `a://${i}`);

describe('a subscription nobody reads', () => {
  test('past maxBuffered it ends lost (SubscriptionOverflowError) and is cancelled', async () => {
    const { host, cancelled } = fake(5);
    const subscription = listen(host, { resourceSubscriptions: uris(5) }, { maxBuffered: 4 });
    const end = await within(subscription.ended, 5_000, 'end');
    expect(end.reason).toBe('lost');
    const error = end.reason === 'lost' ? end.error : undefined;
    expect(error).toBeInstanceOf(SubscriptionOverflowError);
    expect(error).toMatchObject({ maxBuffered: 4 });
    expect(error?.message).toMatch(/more than 4 distinct notifications were waiting unread/);
    await within(cancelled, 5_000, 'the server saw the cancel');
    // The four buffered ones are still read, then the loss is thrown.
    const read: string[] = [];
    const reading = (async () => {
      for await (const note of subscription)
        read.push(typeof note.params.uri === 'string' ? note.params.uri : note.method);
    })();
    await expect(within(reading, 5_000, 'read')).rejects.toBeInstanceOf(SubscriptionOverflowError);
    expect(read).toEqual([
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
      'a://0',
    ]);
  });

  test('the default: DEFAULT_MAX_BUFFERED distinct unread ones, one more overflows', async () => {
    expect(DEFAULT_MAX_BUFFERED).toBe(1024);
    const { host } = fake(DEFAULT_MAX_BUFFERED - 2); // 3 list kinds + 1022 = 1025 distinct
    const subscription = listen(host, { toolsListChanged: true });
    const end = await within(subscription.ended, 10_000, 'end');
    expect(end.reason === 'lost' && end.error).toMatchObject({ maxBuffered: DEFAULT_MAX_BUFFERED });
  });

  test('a filter with many URIs raises the default: a server keeping to it never overflows', async () => {
    const many = DEFAULT_MAX_BUFFERED + 100;
    const { host, sent } = fake(many); // 3 + many distinct: exactly what the filter allows
    const subscription = listen(host, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: uris(many),
    });
    await within(sent, 10_000, 'all sent');
    // A round trip on the same ordered channel: every notification has arrived, none was read.
    await host.connection.request('ping', {}, { timeoutMs: 5_000 });
    let read = 0;
    const reading = (async () => {
      for await (const _note of subscription) if (++read === 3 + many) break;
    })();
    await within(reading, 10_000, 'read all');
    expect(read).toBe(3 + many);
    expect(await within(subscription.ended, 5_000, 'end')).toEqual({ reason: 'closed' });
  });

  test('a maxBuffered that is not a positive integer is refused at once; nothing is sent', () => {
    const { host } = fake(0);
    let requests = 0;
    const counting: ListenHost = {
      connection: host.connection,
      request: (...args) => (requests++, host.request(...args)),
    };
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity])
      expect(() => listen(counting, { toolsListChanged: true }, { maxBuffered: bad })).toThrow(
        /maxBuffered must be a positive integer/,
      );
    expect(requests).toBe(0);
  });
});
