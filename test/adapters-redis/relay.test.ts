/**
 * What only the Redis relay has (the shared behaviour is in test/contracts/relay.contract.ts):
 * key and channel names, the heartbeat, namespaces, stray messages, one connection dropping,
 * a listen that failed, option checks.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisRelay, type RedisRelayOptions } from 'keel-mcp/redis';
import { StoreUnavailableError } from 'keel-mcp/core';
import type { RelayListener } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { connectRelayNodes, type RelayNodes } from './relay-nodes.js';

useProcessGuard();

/** Poll `check` every 20 ms until it holds (bounded: at most `ms`). */
async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Inbox extends RelayListener {
  messages: string[];
  broadcasts: string[];
  interruptions: number;
}

function inbox(): Inbox {
  const box: Inbox = {
    messages: [],
    broadcasts: [],
    interruptions: 0,
    message: (from, text) => void box.messages.push(`${from}:${text}`),
    broadcast: (from, text) => void box.broadcasts.push(`${from}:${text}`),
    interrupted: () => void box.interruptions++,
  };
  return box;
}

describe.skipIf(!redisAvailable())('RedisRelay (Redis specifics)', () => {
  let redis: TestRedis;
  let nodes: RelayNodes;
  const relays: RedisRelay[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });
  afterEach(async () => {
    for (const relay of relays.splice(0)) await within(relay.close(), 10_000, 'relay close');
    await nodes.close();
  });

  /** A relay on its own connection (node index = position in `relays`). */
  const relay = async (options: Partial<RedisRelayOptions> = {}) => {
    const index = await nodes.add();
    const made = new RedisRelay({ client: nodes.client(index), commandTimeoutMs: 500, ...options });
    relays.push(made);
    return { relay: made, index };
  };
  const fresh = async () => {
    nodes = await connectRelayNodes(redis);
  };

  it('names its liveness key keel:<ns>:node:<id> with the TTL, and its channels keel:<ns>:relay:<id> / relay-all', async () => {
    await fresh();
    const { relay: a } = await relay({ namespace: 'app', nodeId: 'node-a', heartbeatMs: 200, ttlMs: 900 });
    await a.listen(inbox());
    const ttls = await nodes.keyTtls();
    expect([...ttls.keys()]).toEqual(['keel:app:node:node-a']);
    const ttl = ttls.get('keel:app:node:node-a')!;
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(900);
    const channels = (await nodes.admin.pubSubChannels('keel:app:*')).sort();
    expect(channels).toEqual(['keel:app:relay-all', 'keel:app:relay:node-a']);
  });

  it('the default liveness window is 5 heartbeats (a few missed beats are not death); ttlMs overrides it', async () => {
    await fresh();
    // Heartbeats far longer than the test: the TTL read is the one listen() set.
    const { relay: a } = await relay({ nodeId: 'a', heartbeatMs: 60_000 });
    const { relay: b } = await relay({ nodeId: 'b', heartbeatMs: 60_000, ttlMs: 70_000 });
    await a.listen(inbox());
    await b.listen(inbox());
    const ttls = await nodes.keyTtls();
    expect(ttls.get(a.nodeKey('a'))).toBeGreaterThan(4 * 60_000);
    expect(ttls.get(a.nodeKey('a'))).toBeLessThanOrEqual(5 * 60_000);
    expect(ttls.get(b.nodeKey('b'))).toBeGreaterThan(60_000);
    expect(ttls.get(b.nodeKey('b'))).toBeLessThanOrEqual(70_000);
  });

  it('the heartbeat puts a lost liveness key back', async () => {
    await fresh();
    const { relay: a } = await relay({ nodeId: 'a', heartbeatMs: 50 });
    await a.listen(inbox());
    const key = a.nodeKey('a');
    expect(await nodes.admin.del(key)).toBe(1); // as if evicted, or Redis restarted empty
    await until(async () => (await nodes.admin.exists(key)) === 1, 5_000, 'key back');
    expect(await a.alive('a')).toBe(true);
  });

  it('namespaces do not see each other', async () => {
    await fresh();
    const x1 = (await relay({ namespace: 'x' })).relay;
    const x2 = (await relay({ namespace: 'x' })).relay;
    const y1 = (await relay({ namespace: 'y' })).relay;
    const y2 = (await relay({ namespace: 'y' })).relay;
    const boxes = [inbox(), inbox(), inbox(), inbox()];
    for (const [i, r] of [x1, x2, y1, y2].entries()) await r.listen(boxes[i]!);
    await x1.broadcast('from x');
    await until(() => boxes[1]!.broadcasts.length === 1, 5_000, 'x2 receives');
    // Published after x1's was delivered: had y1 been subscribed to x's channel, x1's came first.
    await y2.broadcast('from y');
    await until(() => boxes[2]!.broadcasts.length === 1, 5_000, 'y1 receives');
    expect(boxes[2]!.broadcasts).toEqual([`${y2.nodeId}:from y`]);
    expect(boxes[1]!.broadcasts).toEqual([`${x1.nodeId}:from x`]);
    expect(await y1.alive(x1.nodeId)).toBe(false);
    expect(await x2.alive(x1.nodeId)).toBe(true);
  });

  it('ignores stray messages on its channels (no sender) and keeps delivering', async () => {
    await fresh();
    const { relay: a } = await relay({ namespace: 'n', nodeId: 'a' });
    const box = inbox();
    await a.listen(box);
    await nodes.admin.publish('keel:n:relay:a', 'no newline');
    await nodes.admin.publish('keel:n:relay:a', '\nno sender');
    await nodes.admin.publish('keel:n:relay-all', '');
    await nodes.admin.publish('keel:n:relay:a', 'b\nreal');
    await until(() => box.messages.length === 1, 5_000, 'the real one');
    expect(box.messages).toEqual(['b:real']);
    expect(box.broadcasts).toEqual([]);
  });

  it('one connection dropping: interrupted once when it drops and once when it is back; delivery resumes', async () => {
    await fresh();
    const { relay: a, index } = await relay();
    const b = (await relay()).relay;
    const box = inbox();
    await a.listen(box);
    await b.listen(inbox());
    const subscriber = nodes.subscribers(index)[0]!;
    const id = await subscriber.clientId();
    expect(await nodes.admin.clientKill({ filter: 'ID', id })).toBe(1);
    await until(() => box.interruptions === 2, 5_000, 'dropped and back');
    await b.send(a.nodeId, 'after');
    await until(() => box.messages.length === 1, 5_000, 'delivery after the reconnect');
    expect(box.interruptions).toBe(2);
  });

  it('the shared client dropping: interrupted when it drops and when it is back; the key is refreshed at once', async () => {
    await fresh();
    // A heartbeat far longer than the test: only the refresh on reconnect can put the key back.
    const { relay: a, index } = await relay({ heartbeatMs: 60_000 });
    const box = inbox();
    await a.listen(box);
    const client = nodes.connection(index);
    const id = await client.clientId();
    await nodes.admin.del(a.nodeKey(a.nodeId));
    expect(await nodes.admin.clientKill({ filter: 'ID', id })).toBe(1);
    await until(() => box.interruptions === 2, 5_000, 'dropped and back');
    await until(async () => (await nodes.admin.exists(a.nodeKey(a.nodeId))) === 1, 5_000, 'key refreshed');
    expect(box.interruptions).toBe(2);
  });

  it('a listen that failed (Redis down) leaves no connection and can be retried', async () => {
    await fresh();
    const { relay: a, index } = await relay();
    await nodes.backend.stop();
    await expect(a.listen(inbox())).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(nodes.subscribers(index).map((s) => s.isOpen)).toEqual([false]);
    await nodes.backend.start();
    await a.listen(inbox());
    await expect(a.listen(inbox())).rejects.toThrow(/already/);
    expect(await a.alive(a.nodeId)).toBe(true);
  });

  it('after a crash: heartbeat failures go to the logger, close still resolves and clears its timer', async () => {
    await fresh();
    const errors: string[] = [];
    const logger = { debug() {}, error: (message: string) => void errors.push(message) };
    const { relay: a, index } = await relay({ heartbeatMs: 30, logger });
    await a.listen(inbox());
    nodes.destroy(index);
    await until(() => errors.some((m) => m.includes('heartbeat failed')), 5_000, 'logged');
    await expect(within(a.close(), 5_000, 'close')).resolves.toBeUndefined();
  });

  it('checks its options; the default node id is a fresh UUID', async () => {
    await fresh();
    const { index } = await relay();
    const client = nodes.client(index);
    expect(() => new RedisRelay({ client, namespace: 'a b' })).toThrow(TypeError);
    expect(() => new RedisRelay({ client, nodeId: 'x\ny' })).toThrow(TypeError);
    const one = new RedisRelay({ client });
    const two = new RedisRelay({ client });
    expect(one.nodeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(two.nodeId).not.toBe(one.nodeId);
    await one.close(); // never listened: nothing to undo
    await expect(one.listen(inbox())).rejects.toThrow(/closed/);
  });
});
