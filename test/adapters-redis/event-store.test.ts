/**
 * What only the Redis event store has (the shared behaviour is in test/contracts): key layout,
 * option checks, a Redis that hangs, ids it never issued.
 */
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisEventStore } from 'keel-mcp/redis';
import { StoreUnavailableError, type JsonRpcMessage } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';

useProcessGuard();

const note: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x' } };

describe.skipIf(!redisAvailable())('RedisEventStore (Redis specifics)', () => {
  let redis: TestRedis;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });
  const connect = async () => {
    client = createClient({ url: redis.url, disableOfflineQueue: true, commandOptions: { timeout: 0 } });
    client.on('error', () => undefined);
    await client.connect();
    await client.flushAll();
    return client;
  };
  afterEach(() => {
    redis.thaw();
    if (client.isOpen) client.destroy();
  });

  it('puts every key under keel:<namespace>: with one hash tag per stream', async () => {
    const store = new RedisEventStore({ client: await connect(), namespace: 'app-1' });
    await store.storeEvent('sess:1', undefined);
    await store.storeEvent('sess:1', note);
    expect((await client.keys('*')).sort()).toEqual([
      'keel:app-1:es-meta:{sess:1}',
      'keel:app-1:es:{sess:1}',
    ]);
  });

  it('refuses a namespace that could break out of its key space', async () => {
    const c = await connect();
    for (const namespace of ['', 'a:b', 'a{b}', 'a b', '*']) {
      expect(() => new RedisEventStore({ client: c, namespace }), namespace).toThrow(TypeError);
    }
  });

  it('an entry id newer than the stream ever issued is unknown', async () => {
    const store = new RedisEventStore({ client: await connect() });
    const id = await store.storeEvent('s:1', note);
    const seen: string[] = [];
    expect(
      await store.replayEventsAfter('s:1_99999999999999-0', (eventId) => seen.push(eventId)),
    ).toBeUndefined();
    expect(await store.replayEventsAfter(id, (eventId) => seen.push(eventId))).toBe('s:1');
    expect(seen).toEqual([]);
  });

  it('a hung Redis: each command fails with StoreUnavailableError (timed out) after commandTimeoutMs', async () => {
    const store = new RedisEventStore({ client: await connect(), commandTimeoutMs: 200 });
    const id = await store.storeEvent('s:1', note);
    redis.freeze();
    const attempts: Promise<unknown>[] = [
      store.storeEvent('s:1', note),
      store.replayEventsAfter(id, () => undefined),
      store.finishStream('s:1'),
      store.forgetStream('s:1'),
    ];
    for (const attempt of attempts) {
      const error = await within(attempt, 5_000, 'command on a hung Redis').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toContain('no answer within the command timeout');
    }
    redis.thaw();
    // The commands sent while frozen are answered now (late, unobserved); the store works again.
    const next = await store.storeEvent('s:2', undefined);
    const last = await store.storeEvent('s:2', note);
    const seen: string[] = [];
    expect(await store.replayEventsAfter(next, (eventId) => seen.push(eventId))).toBe('s:2');
    expect(seen).toEqual([last]);
  });
});
