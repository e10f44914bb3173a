/**
 * Issue 12: what fails, and how, when a process or the relay goes away. An owner that crashes
 * fails only its own sessions' calls (typed errors at the client), and (issue 28) its sessions
 * are adopted by the next process that gets a request for them; a relay that is down gets 503 with a JSON-RPC error where it is needed,
 * and everything works again once it is back.
 */
import { afterEach, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { McpError, type JsonObject } from 'keel-mcp/core';
import { InMemoryEventStore, StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { SseReader } from '../http-server/support/harness.js';
import {
  callTool,
  initializeRequest,
  openSession,
  request,
  startCluster,
  URL_,
  type Cluster,
  until,
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

/** A client whose initialize goes to `owner` and every later request through `via`. */
async function clientOwnedBy(c: Cluster, owner: number, via: number): Promise<McpClient> {
  const fetch: typeof globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as JsonObject) : undefined;
    const node = body?.method === 'initialize' ? owner : via;
    return c.nodes[node]!.handler(request);
  };
  const transport = new StreamableHttpClientTransport(URL_, { fetch, openGetStream: false });
  return within(McpClient.connect(transport, { era: 'legacy' }), 5_000, 'connect');
}

test('issue 28: owner crash mid-call: its calls fail with typed errors, other owners still serve, and the session is adopted and goes on', async () => {
  // One event store for all, as Redis gives a deployment: a resume on another process finds the events.
  cluster = startCluster(3, { retryMs: 10, relayCheckMs: 20, eventStore: new InMemoryEventStore() });
  const [a] = three(cluster);
  const onA = await clientOwnedBy(cluster, 0, 2);
  const onB = await clientOwnedBy(cluster, 1, 2);
  const resets: unknown[] = [];
  onA.on('sessionReset', (event: unknown) => resets.push(event));
  const sessionOnA = [...a.sessions.keys()][0]!;

  // One call waits before any reply (JSON pending), one has its SSE head already.
  const pending = onA.callTool('slow').then(
    () => 'resolved',
    (error: unknown) => error,
  );
  const streaming = onA.callTool('gated').then(
    () => 'resolved',
    (error: unknown) => error,
  );
  await within(a.probes.for(a.probes.started, 'slow').promise);
  await within(a.probes.for(a.probes.started, 'gated').promise);
  cluster.hub.crash('node-1');

  const [beforeHead, afterHead] = await within(Promise.all([pending, streaming]), 5_000, 'calls fail');
  // Before the head: the forwarder answered the request with -32000.
  expect(beforeHead).toBeInstanceOf(McpError);
  expect(beforeHead).toMatchObject({
    code: -32000,
    message: expect.stringContaining('holding this session stopped'),
  });
  // After the head: the stream was cut; the client resumed it on a process that adopted the
  // session, which replayed the stored events and then answered the dead request once.
  expect(afterHead).toBeInstanceOf(McpError);
  expect(afterHead).toMatchObject({
    code: -32000,
    message: expect.stringContaining('holding this session stopped'),
  });

  // A session owned by another process, through the same handler, still works.
  expect(await within(onB.callTool('whoami'))).toMatchObject({ content: [{ type: 'text' }] });
  // The dead owner's session goes on, same id, served by the process that adopted it.
  const after = await within(onA.callTool('whoami'));
  const served = JSON.parse((after.content as { text: string }[])[0]!.text) as {
    node: string;
    sessionId: string;
  };
  expect(served.sessionId).toBe(sessionOnA);
  expect(served.node).not.toBe('node-1');
  expect(resets).toEqual([]);
  expect(JSON.parse((await cluster.store.get(sessionOnA))!.data!)).toMatchObject({
    owner: expect.not.stringMatching(/^node-1$/),
  });
  // The crashed process's handler still ends its own sessions (its handlers see the abort).
  a.probes.for(a.probes.gates, 'slow').resolve();
  a.probes.for(a.probes.gates, 'gated').resolve();
  await onA.close();
  await onB.close();
});

test('relay down: new sessions and relayed requests get 503 with a JSON-RPC error; local sessions keep working; back up, all works', async () => {
  cluster = startCluster();
  const [a, b] = three(cluster);
  const sessionId = await openSession(a);
  cluster.hub.down = true;

  const init = await request(a, 'POST', { body: initializeRequest() });
  expect(init.status).toBe(503);
  expect(await init.json()).toMatchObject({
    jsonrpc: '2.0',
    error: { code: -32000, message: expect.stringContaining('memory relay') },
  });
  const relayed = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  expect(relayed.status).toBe(503);
  expect(await relayed.json()).toMatchObject({
    error: { code: -32000, message: expect.stringContaining('memory relay') },
  });
  const local = await request(a, 'POST', { sessionId, body: callTool(2, 'whoami') });
  expect(local.status).toBe(200);
  expect(await local.json()).toMatchObject({ id: 2, result: { content: [{ type: 'text' }] } });
  // No session was created for the refused initialize.
  expect(a.started).toHaveLength(1);

  cluster.hub.down = false;
  const again = await request(b, 'POST', { sessionId, body: callTool(3, 'whoami') });
  expect(again.status).toBe(200);
  expect(
    JSON.parse(((await again.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text),
  ).toMatchObject({
    node: 'node-1',
    sessionId,
  });
  await openSession(b);
});

test('a relay that is down when the handler starts: listening is retried when a request needs it', async () => {
  const errors: unknown[] = [];
  const logger = { debug() {}, error: (_message: string, error: unknown) => void errors.push(error) };
  cluster = startCluster(2, { logger }, { hubDown: true });
  const [a, b] = cluster.nodes as [Node, Node];
  // The eager listen() failed (logged), without an unhandled rejection.
  await until(() => errors.length >= 2, 'listen failures logged');
  expect(cluster.hub.nodes.size).toBe(0);
  expect((await request(a, 'POST', { body: initializeRequest() })).status).toBe(503);

  cluster.hub.down = false;
  const sessionId = await openSession(a);
  expect(cluster.hub.nodes.has('node-1')).toBe(true);
  // B listens once it routes its first request.
  const relayed = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  expect(relayed.status).toBe(200);
  expect([...cluster.hub.nodes.keys()].sort()).toEqual(['node-1', 'node-2']);
});

test('a relayed SSE stream cut by the owner process dying ends the client response (abort)', async () => {
  cluster = startCluster();
  const [a, b] = three(cluster);
  const sessionId = await openSession(a);
  const stream = new SseReader(await request(b, 'POST', { sessionId, body: callTool(4, 'gated') }));
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'before gate' } });
  cluster.hub.crash('node-1');
  expect(await within(stream.rest(), 5_000, 'stream cut')).toEqual([]);
  a.probes.for(a.probes.gates, 'gated').resolve();
});

test('owner dead before it answered: GET and DELETE get 503, a POST without requests 503 + Retry-After (it may not have arrived: sent again), one with a request -32000', async () => {
  cluster = startCluster();
  const [a, b] = three(cluster);
  const sessionId = await openSession(a);
  // Everything B sends from now on is lost, so no head ever comes back.
  b.relay.dropping = true;
  const replies = [
    request(b, 'GET', { sessionId }),
    request(b, 'DELETE', { sessionId }),
    request(b, 'POST', { sessionId, body: { jsonrpc: '2.0', method: 'notifications/roots/list_changed' } }),
    request(b, 'POST', { sessionId, body: callTool('r-1', 'whoami') }),
  ];
  await until(() => b.relay.sent.filter((entry) => entry.message.t === 'open').length === 4, 'four opens');
  cluster.hub.crash('node-1');
  const [get, del, notification, call] = await within(Promise.all(replies), 5_000, 'replies');
  for (const reply of [get!, del!]) {
    expect(reply.status).toBe(503);
    expect(await reply.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Service unavailable: the server process holding this session stopped',
      },
    });
  }
  expect(notification!.status).toBe(503);
  expect(notification!.headers.get('retry-after')).toBe('1');
  expect(await notification!.json()).toEqual({
    jsonrpc: '2.0',
    error: {
      code: -32000,
      message: 'Service unavailable: the server process holding this session stopped; send it again',
    },
  });
  expect(call!.status).toBe(200);
  expect(await call!.json()).toEqual({
    jsonrpc: '2.0',
    id: 'r-1',
    error: { code: -32000, message: 'the server process holding this session stopped' },
  });
});

test('issue 28 (crash test, CI): the owner reads as gone while the open is on its way and reached nobody: the session is adopted, not the call failed', async () => {
  cluster = startCluster(2, { relayCheckMs: 20 });
  const [a, b] = [cluster.nodes[0]!, cluster.nodes[1]!];
  const sessionId = await openSession(a);
  cluster.hub.crash(a.relay.nodeId);
  // B's open to the dead owner is slow to be answered: meanwhile B's peer watch reads A as gone.
  let release!: () => void;
  b.relay.heldOpens = new Promise<void>((resolve) => (release = resolve));
  const reply = request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  for (let turn = 0; turn < 400 && b.relay.aliveCalls === 0; turn++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect(b.relay.aliveCalls).toBeGreaterThan(0); // the peer watch asked about A, and read it gone
  await new Promise((resolve) => setTimeout(resolve, 20));
  b.relay.heldOpens = undefined;
  release();
  const response = await within(reply, 5_000, 'the call');
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result?: { content: { text: string }[] }; error?: unknown };
  expect(body.error).toBeUndefined();
  expect(JSON.parse(body.result!.content[0]!.text)).toMatchObject({ node: 'node-2', sessionId });
});
