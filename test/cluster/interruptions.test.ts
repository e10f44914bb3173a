/**
 * Issue 12 review (items 1, 2, 9): a relayed exchange never waits forever. When one side's relay
 * connection breaks, both sides are told (the owner sends `abort`, the forwarder `gone`); a reply
 * for an exchange the forwarder already dropped is answered `gone`, so the owner releases it; a
 * throw while the owner attaches a relayed body is no unhandled rejection.
 */
import { afterEach, expect, test } from 'vitest';
import type { Logger } from 'keel-mcp/core';
import { Inbound } from '../../src/hosts/http/cluster/inbound.js';
import { PeerWatch } from '../../src/hosts/http/cluster/peer-watch.js';
import type { TunnelMessage } from '../../src/hosts/http/cluster/tunnel-wire.js';
import { MemoryRelayHub } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { SseReader } from '../http-server/support/harness.js';
import { callTool, openSession, request, startCluster, type Cluster, type Node } from './support/cluster.js';

useProcessGuard();

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

function two(c: Cluster): [Node, Node] {
  return c.nodes as [Node, Node];
}

/** GET the session's stream through `node` until it is no longer 409 (bounded in turns). */
async function getStream(node: Node, sessionId: string): Promise<Response> {
  for (let turn = 0; turn < 200; turn++) {
    const response = await request(node, 'GET', { sessionId });
    if (response.status !== 409) return response;
    await response.text();
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the GET stream stayed taken (409)');
}

test("the owner's relay connection breaks: its forwarders are told; a request before its head gets the owner-stopped error, a stream is cut", async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const pending = request(b, 'POST', { sessionId, body: callTool(1, 'slow') });
  await within(a.probes.for(a.probes.started, 'slow').promise);
  const stream = new SseReader(await request(b, 'POST', { sessionId, body: callTool(2, 'gated') }));
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'before gate' } });

  a.relay.interrupt(); // only the owner's medium connection broke; the peer watch is far off

  const response = await within(pending, 5_000, 'the request waiting for its head');
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({
    id: 1,
    error: { code: -32000, message: expect.stringContaining('holding this session stopped') },
  });
  await within(stream.rest(), 5_000, 'the relayed stream ends');
  // The owner dropped both exchanges, and said so once each.
  expect(a.relay.sent.filter((entry) => entry.message.t === 'abort')).toHaveLength(2);
});

test("the forwarder's relay connection breaks: it tells the owner (gone), which releases the session's GET stream", async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const first = new SseReader(await request(b, 'GET', { sessionId }));
  await within(first.next()); // the priming event: the stream is open on the owner

  b.relay.interrupt();

  await within(first.rest(), 5_000, 'the cut stream ends');
  expect(b.relay.sent.filter((entry) => entry.message.t === 'gone')).toHaveLength(1);
  const again = await within(getStream(b, sessionId));
  expect(again.status).toBe(200);
  await again.body?.cancel();
});

test('a reply for an exchange the forwarder dropped is answered gone: the owner releases it even when the first gone was lost', async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const first = new SseReader(await request(b, 'GET', { sessionId }));
  await within(first.next());

  b.relay.dropping = true; // the gone sent on interruption is lost in the medium
  b.relay.interrupt();
  await within(first.rest());
  b.relay.dropping = false;
  // Still open on the owner: the next GET conflicts.
  const conflict = await request(b, 'GET', { sessionId });
  expect(conflict.status).toBe(409);
  await conflict.text();

  // The owner writes to the stream it still holds: the forwarder answers gone.
  void a.sessions.get(sessionId)!.notify('notifications/message', { level: 'info', data: 'anyone?' });
  const again = await within(getStream(b, sessionId));
  expect(again.status).toBe(200);
  await again.body?.cancel();
});

test('a throw while attaching a relayed body drops the exchange (abort to the forwarder), no unhandled rejection', async () => {
  const hub = new MemoryRelayHub();
  const relay = hub.node('owner');
  const errors: unknown[] = [];
  const logger: Logger = { debug() {}, error: (_message, error) => void errors.push(error) };
  const sent: TunnelMessage[] = [];
  const watch = new PeerWatch(relay, 60_000, logger);
  const inbound = new Inbound({ send: (_to, message) => void sent.push(message), watch, logger }, () =>
    Promise.resolve({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: {
        attach() {
          throw new Error('sink refused');
        },
      },
    }),
  );
  inbound.open('forwarder', { t: 'open', x: 'k.1', m: 'GET', h: [] });
  for (let turn = 0; turn < 20 && errors.length === 0; turn++) await new Promise((r) => setImmediate(r));
  expect(errors).toHaveLength(1);
  expect(sent.map((message) => message.t)).toEqual(['head', 'abort']);
  expect(inbound.size).toBe(0);
  watch.stop();
});

test("a client's answer POSTed through a forwarder whose relay breaks before the owner took it: 503 + Retry-After (sent again), never a 202 that loses it", async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  b.relay.dropping = true; // the answer's `open` is lost in the medium
  const answer = { jsonrpc: '2.0', id: 7, result: { action: 'accept', content: {} } };
  const pending = request(b, 'POST', { sessionId, body: answer });
  await new Promise((resolve) => setImmediate(resolve));
  b.relay.interrupt();
  b.relay.dropping = false;

  const response = await within(pending, 5_000, 'the answer waiting for the owner');
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(await response.json()).toMatchObject({
    error: { code: -32000, message: expect.stringContaining('send it again') },
  });
  // Sent again, it reaches the owner, which ignores an answer to nothing it asked.
  const again = await request(b, 'POST', { sessionId, body: answer });
  expect(again.status).toBe(202);
});
