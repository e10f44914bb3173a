/**
 * Issue 12, second review (FX3 item 1): when the owner's own sends for a relayed exchange fail
 * (a `head`, a `data` piece or the `end` refused or lost), the forwarder's client is answered
 * rather than left waiting: the owner sends `abort` (again after the relay reconnects when the
 * relay refused that too), and a chunked JSON reply's `end` carries its piece count.
 */
import { afterEach, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import { SseReader } from '../http-server/support/harness.js';
import {
  callTool,
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

function aborts(node: Node): number {
  return node.relay.sent.filter((entry) => entry.message.t === 'abort').length;
}

/** Make `node`'s relay misbehave for the messages `pick` selects (the rest go through). */
function intercept(node: Node, pick: (message: { t: string }) => 'refuse' | 'lose' | 'send'): void {
  const send = node.relay.send.bind(node.relay);
  node.relay.send = (to: string, text: string) => {
    const what = pick(JSON.parse(text) as { t: string });
    if (what === 'send') return send(to, text);
    node.relay.sent.push({ to, message: JSON.parse(text) as never });
    return what === 'refuse' ? Promise.reject(new Error('relay timeout')) : Promise.resolve(true);
  };
}

const OWNER_STOPPED = {
  error: { code: -32000, message: expect.stringContaining('holding this session stopped') },
};

test("the owner's head is refused and so is its abort: the abort goes again when the relay reconnects", async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const pending = request(b, 'POST', { sessionId, body: callTool(1, 'slow') });
  await within(a.probes.for(a.probes.started, 'slow').promise);

  a.relay.refusing = true;
  a.probes.for(a.probes.gates, 'slow').resolve();
  await until(() => aborts(a) === 1, 'the owner tried to abort');
  a.relay.refusing = false;
  a.relay.interrupt(); // the relay is back: what it refused is aborted again

  const response = await within(pending, 5_000, 'the forwarded request');
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ id: 1, ...OWNER_STOPPED });
  expect(aborts(a)).toBe(2);
});

test("a chunked JSON reply whose end is refused: the forwarder's client gets the owner-stopped error", async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  intercept(a, (message) => (message.t === 'end' ? 'refuse' : 'send'));

  const body = callTool(1, 'big', { text: 'x'.repeat(1_000), times: 300 });
  const response = await within(request(b, 'POST', { sessionId, body }), 5_000, 'the forwarded request');
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ id: 1, ...OWNER_STOPPED });
  expect(aborts(a)).toBe(1);
});

test('a chunked JSON reply that lost a piece in the medium fails on the piece count, never arrives cut', async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  let data = 0;
  intercept(a, (message) => (message.t === 'data' && ++data === 2 ? 'lose' : 'send'));

  const body = callTool(1, 'big', { text: 'x'.repeat(1_000), times: 300 });
  const response = await within(request(b, 'POST', { sessionId, body }), 5_000, 'the forwarded request');
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ id: 1, ...OWNER_STOPPED });
  const end = a.relay.sent.find((entry) => entry.message.t === 'end');
  expect(end?.message.n).toBe(data);
});

test('an SSE piece of a relayed stream is refused: the owner aborts once and the stream ends', async () => {
  cluster = startCluster(2, { relayCheckMs: 60_000 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const stream = new SseReader(await request(b, 'POST', { sessionId, body: callTool(2, 'gated') }));
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'before gate' } });

  let refused = 0;
  intercept(a, (message) => (message.t === 'data' && ++refused === 1 ? 'refuse' : 'send'));
  a.probes.for(a.probes.gates, 'gated').resolve();

  await within(stream.rest(), 5_000, 'the relayed stream ends');
  expect(aborts(a)).toBe(1);
});
