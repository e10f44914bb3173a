/**
 * Issue 12 review (items 1b, 6, 7, 8): how a relayed request finds its owner and how big relay
 * messages get. No liveness round trip per request; a request that reached nobody asks then
 * (owner gone: adopted here, issue 28, or 404 and its record deleted without a snapshot; owner
 * alive: 503 after a bounded wait); exchange ids differ per start;
 * a large JSON reply travels in bounded pieces; a message over its bound is refused and its
 * exchange failed.
 */
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { OTHER_LIMIT } from '../../src/hosts/http/cluster/tunnel-wire.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { SseReader } from '../http-server/support/harness.js';
import {
  callTool,
  JSON_AND_SSE,
  openSession,
  request,
  startCluster,
  until,
  type Cluster,
  type Node,
} from './support/cluster.js';

useProcessGuard();

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

function two(c: Cluster): [Node, Node] {
  return c.nodes as [Node, Node];
}

test('relayed requests ask no liveness question of the relay (the send says whether anyone heard)', async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const before = b.relay.aliveCalls;
  for (let i = 0; i < 5; i++) {
    expect((await request(b, 'POST', { sessionId, body: callTool(i, 'whoami') })).status).toBe(200);
  }
  expect(b.relay.aliveCalls - before).toBe(0);
});

test('an open that reached nobody: owner alive (between connections) is 503 after about ten relay checks; owner gone: the session is adopted here (issue 28)', async () => {
  cluster = startCluster(2, { relayCheckMs: 10 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);

  b.relay.unheard = true;
  const between = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  expect(between.status).toBe(503);
  expect(between.headers.get('retry-after')).toBe('1');
  // Names the relay, not the process that did not answer.
  expect(await between.json()).toMatchObject({
    error: { code: -32000, message: 'Service unavailable: relay: send failed (backend unavailable)' },
  });
  // It waited for the owner to read as gone: one check, then ten more, one per relayCheckMs.
  expect(b.relay.aliveCalls).toBe(11);
  expect(JSON.parse((await cluster.store.get(sessionId))!.data!)).toMatchObject({ owner: 'node-1' });
  b.relay.unheard = false;

  cluster.hub.crash('node-1');
  const adopted = await request(b, 'POST', { sessionId, body: callTool(2, 'whoami') });
  expect(adopted.status).toBe(200);
  const text = ((await adopted.json()) as { result: { content: { text: string }[] } }).result.content[0]!
    .text;
  expect(JSON.parse(text)).toMatchObject({ node: 'node-2', sessionId });
  expect(JSON.parse((await cluster.store.get(sessionId))!.data!)).toMatchObject({ owner: 'node-2' });
  expect(b.sessions.has(sessionId)).toBe(true);
});

test('issue 28: a session whose record carries no snapshot (handshake unfinished, or an older writer) is not adopted: 404 and its record deleted', async () => {
  cluster = startCluster(2, { relayCheckMs: 10 });
  const [, b] = two(cluster);
  await cluster.store.create({ id: 'old-format', data: '{"owner":"node-gone"}' }, { ttlMs: 60_000 });
  const response = await request(b, 'POST', { sessionId: 'old-format', body: callTool(1, 'whoami') });
  expect(response.status).toBe(404);
  for (let turn = 0; turn < 20 && (await cluster.store.get('old-format')) !== undefined; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await cluster.store.get('old-format')).toBeUndefined();
  expect(b.sessions.has('old-format')).toBe(false);
});

test('exchange ids carry a random per-start prefix: a restart under the same node id never reuses one', async () => {
  const firstIds: string[] = [];
  for (let start = 0; start < 2; start++) {
    cluster = startCluster(2, { relayCheckMs: 60_000 });
    const [a, b] = two(cluster);
    const sessionId = await openSession(a);
    await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
    await request(b, 'POST', { sessionId, body: callTool(2, 'whoami') });
    const ids = b.relay.sent.filter((entry) => entry.message.t === 'open').map((entry) => entry.message.x);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    firstIds.push(ids[0] as string);
    await cluster.close();
    cluster = undefined;
  }
  expect(firstIds[0]).not.toBe(firstIds[1]);
  expect(firstIds[0]).not.toBe('1');
});

test('a large JSON reply travels as a head and bounded pieces, and arrives whole (surrogate pairs intact)', async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  // 800 K UTF-16 units of surrogate pairs; ids of one and two digits shift every cut by one, so
  // one of the two replies would be cut inside a pair by a naive split.
  const args = { text: '😀', times: 400_000 };
  for (const id of [1, 10]) {
    const sentBefore = a.relay.sent.length;
    const response = await request(b, 'POST', { sessionId, body: callTool(id, 'big', args) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { content: { text: string }[] } };
    expect(body.result.content[0]!.text).toBe(args.text.repeat(args.times));
    const toB = a.relay.sent
      .slice(sentBefore)
      .filter((entry) => entry.to === 'node-2')
      .map((entry) => entry.message);
    const head = toB.find((message) => message.t === 'head')!;
    expect(head).toMatchObject({ j: 1 });
    expect(head.b).toBeUndefined();
    const data = toB.filter((message) => message.t === 'data').map((message) => message.d as string);
    expect(data.length).toBeGreaterThan(1);
    for (const d of data) expect(/[\uD800-\uDBFF]$/.test(d)).toBe(false);
    for (const message of toB) expect(JSON.stringify(message).length).toBeLessThanOrEqual(OTHER_LIMIT);
  }
});

test('a relayed open over its bound is refused (413 head, not served); a data piece over its bound fails that stream and the owner is told', async () => {
  const debug: string[] = [];
  cluster = startCluster(2, {
    relayCheckMs: 60_000,
    maxBodyBytes: 1_000,
    logger: { debug: (message) => void debug.push(message), error() {} },
  });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const intruder = cluster.hub.node('intruder');
  const received: JsonObject[] = [];
  await intruder.listen({ message: (_from, text) => void received.push(JSON.parse(text)), broadcast() {} });

  // Over 2 × maxBodyBytes + 64 KiB: refused unparsed, the sender told (413, as a local request).
  const h: [string, string][] = [
    ['content-type', 'application/json'],
    ['accept', JSON_AND_SSE],
    ['mcp-session-id', sessionId],
    ['host', '127.0.0.1'],
  ];
  await intruder.send(
    'node-1',
    JSON.stringify({ t: 'open', x: 'huge', m: 'POST', h, b: 'x'.repeat(70_000) }),
  );
  await until(() => received.length === 1, 'the refusal');
  expect(received).toMatchObject([{ t: 'head', x: 'huge', s: 413 }]);
  expect(debug.some((line) => line.includes('over the size bound'))).toBe(true);

  // A session "owned" by the intruder: B relays its GET there and gets an oversized chunk back.
  await cluster.store.create(
    { id: 'owned-by-intruder', data: JSON.stringify({ owner: 'intruder' }) },
    { ttlMs: 60_000 },
  );
  const get = request(b, 'GET', { sessionId: 'owned-by-intruder' });
  await until(() => received.some((message) => message.t === 'open'), 'the relayed GET');
  const x = received.find((message) => message.t === 'open')!.x as string;
  await intruder.send(
    'node-2',
    JSON.stringify({ t: 'head', x, s: 200, h: [['content-type', 'text/event-stream']] }),
  );
  const stream = new SseReader(await within(get));
  await intruder.send('node-2', JSON.stringify({ t: 'data', x, d: 'y'.repeat(OTHER_LIMIT) }));
  expect(await within(stream.rest())).toEqual([]);
  await until(() => received.some((message) => message.t === 'gone'), 'gone to the owner');
  expect(received.filter((message) => message.t === 'gone')).toEqual([{ t: 'gone', x }]);
  await intruder.close();
});

test('an owner that ends or aborts an exchange before its head: the client gets the owner-stopped reply, never a wait', async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [, b] = two(cluster);
  const owner = cluster.hub.node('intruder');
  const opens: string[] = [];
  await owner.listen({
    message: (_from, text) => {
      const message = JSON.parse(text) as JsonObject;
      if (message.t === 'open') opens.push(message.x as string);
    },
    broadcast() {},
  });
  await cluster.store.create(
    { id: 'elsewhere', data: JSON.stringify({ owner: 'intruder' }) },
    { ttlMs: 60_000 },
  );
  for (const t of ['end', 'abort']) {
    const pending = request(b, 'GET', { sessionId: 'elsewhere' });
    await until(() => opens.length === 1, 'the relayed GET');
    await owner.send('node-2', JSON.stringify({ t, x: opens.pop() }));
    const response = await within(pending);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      error: { code: -32000, message: expect.stringContaining('holding this session stopped') },
    });
  }
  await owner.close();
});
