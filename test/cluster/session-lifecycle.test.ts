/**
 * Issue 12: the lifecycle guarantees of a relayed session: resume through another handler,
 * DELETE through one that does not hold the session, cancellation, a client leaving mid-stream,
 * and a clean close (no send after close, nothing left in the relay or the store).
 */
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
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

function three(c: Cluster): [Node, Node, Node] {
  return c.nodes as [Node, Node, Node];
}

/** Messages `from` sent over the relay for exchanges of type `t`. */
function sent(node: Node, t: string): JsonObject[] {
  return node.relay.sent.filter((entry) => entry.message.t === t).map((entry) => entry.message);
}

test('a client that leaves a relayed stream: the owner sees it gone, and a resume elsewhere replays the rest', async () => {
  cluster = startCluster();
  const [a, b, c] = three(cluster);
  const sessionId = await openSession(a);
  const leave = new AbortController();
  const response = await request(b, 'POST', { sessionId, body: callTool(7, 'gated'), signal: leave.signal });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const stream = new SseReader(response);
  const priming = await within(stream.next(), 5_000, 'priming event');
  expect(priming?.data).toBe('');
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'before gate' } });

  leave.abort();
  // B told the owner (one `gone` for that exchange), and the owner's stream saw its client leave.
  const [open] = sent(b, 'open');
  await until(() => sent(b, 'gone').length > 0, 'gone sent');
  expect(sent(b, 'gone')).toEqual([{ t: 'gone', x: open!.x }]);
  const dataBefore = sent(a, 'data').length;
  a.probes.for(a.probes.gates, 'gated').resolve();
  await within(a.probes.for(a.probes.finished, 'gated').promise);
  // A dropped stream is not a cancel (legacy): the handler finished, nothing more went to B.
  expect(a.probes.aborted.has('gated')).toBe(false);
  expect(sent(a, 'data').length).toBe(dataBefore);

  const resumed = await request(c, 'GET', { sessionId, headers: { 'last-event-id': priming!.id! } });
  expect(resumed.status).toBe(200);
  const replay = await within(new SseReader(resumed).rest(), 5_000, 'replay');
  expect(replay.map((message) => message.params ?? message.result)).toEqual([
    { level: 'info', data: 'before gate' },
    { level: 'info', data: 'after gate' },
    { content: [{ type: 'text', text: 'gated gated done' }] },
  ]);
});

test('a stream the owner closes (SEP-1699 closeSSEStream) is resumed through another handler', async () => {
  cluster = startCluster();
  const [a, b, c] = three(cluster);
  const sessionId = await openSession(a);
  const stream = new SseReader(await request(b, 'POST', { sessionId, body: callTool(3, 'close-stream') }));
  const priming = await within(stream.next());
  expect(stream.retry).toBe(1_000);
  // The owner ended the stream: B's client reads its end after the first message.
  expect(await within(stream.rest())).toEqual([
    expect.objectContaining({ params: { level: 'info', data: 'before close' } }),
  ]);
  a.probes.for(a.probes.gates, 'close-stream').resolve();
  await within(a.probes.for(a.probes.finished, 'close-stream').promise);
  const resumed = await request(c, 'GET', { sessionId, headers: { 'last-event-id': priming!.id! } });
  const replay = await within(new SseReader(resumed).rest());
  expect(replay).toEqual([
    expect.objectContaining({ params: { level: 'info', data: 'before close' } }),
    expect.objectContaining({ params: { level: 'info', data: 'after close' } }),
    expect.objectContaining({ id: 3, result: { content: [{ type: 'text', text: 'closed and done' }] } }),
  ]);
});

test('DELETE through another handler ends the session on its owner: handler aborted, relayed streams answered and ended, then 404 everywhere', async () => {
  cluster = startCluster();
  const [a, b, c] = three(cluster);
  const sessionId = await openSession(a);
  const call = new SseReader(await request(b, 'POST', { sessionId, body: callTool(1, 'block') }));
  expect(await within(call.nextMessage())).toMatchObject({ method: 'elicitation/create' });
  const get = new SseReader(await request(c, 'GET', { sessionId }));

  const deleted = await request(b, 'DELETE', { sessionId });
  expect(deleted.status).toBe(200);
  await within(a.probes.for(a.probes.aborted, 'block').promise, 5_000, 'handler abort');
  // The waiting call's one answer (DESIGN.md "Ending HTTP streams"), then the end.
  expect(await within(call.rest(), 5_000, 'POST stream end')).toEqual([
    { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Connection closed' } },
  ]);
  expect(await within(get.rest(), 5_000, 'GET stream end')).toEqual([]);
  expect(a.ended).toEqual([[sessionId, 'deleted']]);
  for (const node of cluster.nodes) {
    expect((await request(node, 'POST', { sessionId, body: callTool(2, 'whoami') })).status).toBe(404);
  }
  expect(await cluster.store.get(sessionId)).toBeUndefined();
});

test('notifications/cancelled POSTed through another handler aborts the handler on the owner', async () => {
  cluster = startCluster();
  const [a, b, c] = three(cluster);
  const sessionId = await openSession(a);
  const call = new SseReader(await request(b, 'POST', { sessionId, body: callTool(5, 'block') }));
  expect(await within(call.nextMessage())).toMatchObject({ method: 'elicitation/create' });
  const cancel = await request(c, 'POST', {
    sessionId,
    body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'user' } },
  });
  expect(cancel.status).toBe(202);
  await within(a.probes.for(a.probes.aborted, 'block').promise, 5_000, 'handler abort');
  // A cancelled request is not answered: its stream carries only the owner's cancel of the
  // elicitation it had pending, then ends.
  expect(await within(call.rest())).toEqual([
    expect.objectContaining({
      method: 'notifications/cancelled',
      params: expect.objectContaining({ requestId: 0 }),
    }),
  ]);
});

test('close of every process at once: nothing hangs, no relay send after close, nothing left in the relay; each record deleted or handed over (issue 28)', async () => {
  cluster = startCluster();
  const [a, b, c] = three(cluster);
  const ids = [await openSession(a), await openSession(b)];
  // Streams in flight at close, relayed both ways.
  const call = new SseReader(await request(b, 'POST', { sessionId: ids[0], body: callTool(1, 'block') }));
  expect(await within(call.nextMessage())).toMatchObject({ method: 'elicitation/create' });
  const get = new SseReader(await request(c, 'GET', { sessionId: ids[1] }));
  await cluster.close();
  // Both relayed streams end (with the owner's -32000 for the blocked call if its forwarder was
  // still open when the drain's deadline passed; cut otherwise): neither hangs.
  const rest = await within(call.rest());
  expect(
    rest.length === 0 ||
      JSON.stringify(rest) ===
        JSON.stringify([{ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Connection closed' } }]),
  ).toBe(true);
  expect(await within(get.rest())).toEqual([]);
  expect(cluster.hub.nodes.size).toBe(0);
  for (const node of cluster.nodes) expect(node.relay.afterClose).toEqual([]);
  // A's session had a call running past the drain's deadline: it ended. B's was idle: handed over.
  expect(a.ended.map(([, reason]) => reason)).toEqual(['shutdown']);
  expect(await cluster.store.get(ids[0]!)).toBeUndefined();
  expect(b.ended.map(([, reason]) => reason)).toEqual(['handed-over']);
  expect(JSON.parse((await cluster.store.get(ids[1]!))!.data!)).toMatchObject({ owner: null, s: { n: 1 } });
  // After close: 503 on every handler, nothing relayed.
  for (const node of cluster.nodes)
    expect((await request(node, 'POST', { sessionId: ids[0], body: callTool(9, 'whoami') })).status).toBe(
      503,
    );
});

test('issue 28: the last process standing (no peer listening) ends its sessions and deletes their records, as a lone process does', async () => {
  cluster = startCluster(2);
  const [a, b] = cluster.nodes as [Node, Node];
  const sessionId = await openSession(a);
  const call = new SseReader(await request(a, 'POST', { sessionId, body: callTool(1, 'block') }));
  expect(await within(call.nextMessage())).toMatchObject({ method: 'elicitation/create' });
  await b.handler.close({ deadlineMs: 2_000 });
  await a.handler.close({ deadlineMs: 2_000 });
  expect(await within(call.rest())).toEqual([
    { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Connection closed' } },
  ]);
  expect(a.ended.map(([, reason]) => reason)).toEqual(['shutdown']);
  expect(await cluster.store.get(sessionId)).toBeUndefined();
  expect(cluster.hub.nodes.size).toBe(0);
});

test('closing a process that forwards: its waiting clients get -32000, the owner is told, the session lives on', async () => {
  cluster = startCluster();
  const [a, b, c] = three(cluster);
  const sessionId = await openSession(a);
  const pending = request(b, 'POST', { sessionId, body: callTool(1, 'slow') });
  await within(a.probes.for(a.probes.started, 'slow').promise);
  await b.handler.close({ deadlineMs: 2_000 });
  const reply = await pending;
  expect(reply.status).toBe(200);
  expect(await reply.json()).toEqual({
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32000, message: 'Server is shutting down' },
  });
  expect(sent(b, 'gone')).toHaveLength(1);
  expect(b.relay.afterClose).toEqual([]);
  // The session is A's: it still serves it, directly and through C.
  expect((await request(c, 'POST', { sessionId, body: callTool(2, 'whoami') })).status).toBe(200);
  a.probes.for(a.probes.gates, 'slow').resolve();
  await within(a.probes.for(a.probes.finished, 'slow').promise);
});

test('a client that leaves before the owner answered: the owner is told, and answers nobody', async () => {
  cluster = startCluster();
  const [a, b] = three(cluster);
  const sessionId = await openSession(a);
  const leave = new AbortController();
  const pending = request(b, 'POST', { sessionId, body: callTool(1, 'slow'), signal: leave.signal });
  await within(a.probes.for(a.probes.started, 'slow').promise);
  leave.abort();
  // The host's call settles (nobody reads this reply): no promise is left hanging.
  expect((await within(pending)).status).toBe(202);
  await until(() => sent(b, 'gone').length === 1, 'gone sent');
  const [open] = sent(b, 'open');
  a.probes.for(a.probes.gates, 'slow').resolve();
  await within(a.probes.for(a.probes.finished, 'slow').promise);
  // The session is still A's and still works; no head went back for the abandoned exchange.
  expect((await request(b, 'POST', { sessionId, body: callTool(2, 'whoami') })).status).toBe(200);
  expect(sent(a, 'head').filter((message) => message.x === open!.x)).toEqual([]);
});
