/**
 * Issue 28: sessions outlive their process. A session whose owner is gone is adopted by the next
 * process that gets a request for it (one winner), with its state (version, client info, log level,
 * subscriptions, principal); a process that drains hands its idle sessions over, lets running
 * calls finish, and passes new sessions to its peers. In-process handlers on one MemoryRelayHub
 * and one session store stand for the processes (test/cluster/support/cluster.ts).
 */
import { afterEach, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import type { JsonObject } from 'keel-mcp/core';
import {
  createHttpHandler,
  InMemoryEventStore,
  InMemorySessionStore,
  MemoryRelayHub,
  StreamableHttpClientTransport,
  type HttpHandler,
} from 'keel-mcp/http';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  callTool,
  initializeRequest,
  openSession,
  request,
  startCluster,
  URL_,
  type Cluster,
  type Node,
} from './support/cluster.js';

useProcessGuard();

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

let cluster: Cluster | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await cluster?.close();
  cluster = undefined;
});

function three(c: Cluster): [Node, Node, Node] {
  return c.nodes as [Node, Node, Node];
}

async function whoami(
  node: Node,
  sessionId: string,
  id: number,
): Promise<{ node: string; sessionId: string }> {
  const response = await request(node, 'POST', { sessionId, body: callTool(id, 'whoami') });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { content: { text: string }[] } };
  return JSON.parse(body.result.content[0]!.text) as { node: string; sessionId: string };
}

test('issue 28 adoption: of two processes racing for an orphaned session exactly one adopts it; the other relays to it', async () => {
  cluster = startCluster(3);
  const [a, b, c] = three(cluster);
  const sessionId = await openSession(a);
  cluster.hub.crash('node-1');
  const [viaB, viaC] = await within(Promise.all([whoami(b, sessionId, 1), whoami(c, sessionId, 2)]));
  expect(viaB.sessionId).toBe(sessionId);
  expect(viaC.sessionId).toBe(sessionId);
  // One process holds it, and both requests were served there.
  const holders = [b, c].filter((node) => node.sessions.has(sessionId));
  expect(holders).toHaveLength(1);
  expect(viaB.node).toBe(holders[0]!.name);
  expect(viaC.node).toBe(holders[0]!.name);
  expect(JSON.parse((await cluster.store.get(sessionId))!.data!)).toMatchObject({ owner: holders[0]!.name });
  // The adopted session is the one the client made: its handshake is not asked again.
  const adopted = holders[0]!.sessions.get(sessionId)!;
  expect(adopted.protocolVersion).toBe('2025-11-25');
  expect(adopted.clientInfo).toEqual({ name: 't', version: '1' });
  expect(adopted.clientCapabilities).toEqual({ elicitation: {} });
  expect(adopted.initialized).toBe(true);
  expect([...b.started, ...c.started]).toEqual([sessionId]);
});

test('issue 28 drain: idle sessions are handed over at once, a running call finishes, new sessions go to a peer, then the process stops', async () => {
  cluster = startCluster(3);
  const [a, b, c] = three(cluster);
  const idle = await openSession(a);
  const idle2 = await openSession(a);
  const busy = await openSession(a);
  const running = request(b, 'POST', { sessionId: busy, body: callTool(1, 'slow') });
  await within(a.probes.for(a.probes.started, 'slow').promise);

  const closed = a.handler.close({ deadlineMs: 10_000 });
  // The idle session moved: its next request, through any process, is adopted (no 404, no new session).
  const moved = await within(whoami(c, idle, 2));
  expect(moved).toMatchObject({ sessionId: idle });
  expect(moved.node).not.toBe('node-1');
  // Through the draining process itself: passed on to the process that holds it now.
  expect(await within(whoami(a, idle, 3))).toMatchObject({ node: moved.node, sessionId: idle });
  // A handed-over session whose first request reaches the draining process: a peer adopts it.
  const passed = await within(whoami(a, idle2, 5));
  expect(passed.sessionId).toBe(idle2);
  expect(passed.node).not.toBe('node-1');
  expect([b, c].filter((node) => node.sessions.has(idle2))).toHaveLength(1);
  expect(a.ended.map(([id, reason]) => [id, reason]).sort()).toEqual(
    [
      [idle, 'handed-over'],
      [idle2, 'handed-over'],
    ].sort(),
  );
  // A new session asked of the draining process is made by a peer.
  const init = await request(a, 'POST', { body: initializeRequest() });
  expect(init.status).toBe(200);
  const fresh = init.headers.get('mcp-session-id')!;
  expect(a.started).not.toContain(fresh);
  expect([...b.started, ...c.started]).toContain(fresh);

  // The running call was not cut: it finishes on A with its result, then its session moves too.
  a.probes.for(a.probes.gates, 'slow').resolve();
  const answer = (await (await within(running)).json()) as JsonObject;
  expect(answer).toMatchObject({ id: 1, result: { content: [{ text: 'slow done' }] } });
  await within(closed, 12_000, 'drain');
  expect(a.ended.map(([, reason]) => reason)).toEqual(['handed-over', 'handed-over', 'handed-over']);
  expect(await within(whoami(b, busy, 4))).toMatchObject({ sessionId: busy });
  expect(a.sessions.size).toBe(0);
  expect(a.relay.afterClose).toEqual([]);
});

/** Two McpServer processes on one hub, store and event store; `route` picks who gets each request. */
function mcpPair(): {
  handlers: HttpHandler[];
  hub: MemoryRelayHub;
  servers: McpServer[];
  route: { to: number };
  gates: { started: Deferred; open: Deferred };
} {
  const gates = { started: deferred(), open: deferred() };
  const hub = new MemoryRelayHub();
  const sessions = new InMemorySessionStore();
  const eventStore = new InMemoryEventStore();
  const servers: McpServer[] = [];
  const handlers = ['p1', 'p2'].map((name) => {
    const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { logging: {} } });
    server.resource('status', 'test://status', { description: 'Status' }, () => ({
      contents: [{ uri: 'test://status', text: 'ok' }],
    }));
    server.tool('gate', { description: 'Waits for the test to open its gate' }, async () => {
      gates.started.resolve();
      await gates.open.promise;
      return `through on ${name}`;
    });
    server.tool('chatty', { description: 'Logs at info and at error' }, async (_args, ctx) => {
      await ctx.log('info', `info from ${name}`);
      await ctx.log('error', `error from ${name}`);
      return `done on ${name}`;
    });
    servers.push(server);
    return createHttpHandler(server, {
      keepAliveMs: 0,
      relayCheckMs: 10,
      retryMs: 10,
      eventStore,
      backplane: { relay: hub.node(name), sessions },
    });
  });
  return { handlers, hub, servers, route: { to: 0 }, gates };
}

test('issue 28 adoption: the log level and resource subscriptions the client set survive its owner (McpClient, public API)', async () => {
  const pair = mcpPair();
  cleanups.push(() => Promise.all(pair.handlers.map((handler) => handler.close({ deadlineMs: 1_000 }))));
  const fetch: typeof globalThis.fetch = (input, init) =>
    pair.handlers[pair.route.to]!(new Request(input, init));
  const client = await within(
    McpClient.connect(new StreamableHttpClientTransport(URL_, { fetch }), { era: 'legacy' }),
  );
  cleanups.push(() => client.close());
  const logs: string[] = [];
  client.on('log', (message: { data: unknown }) => logs.push(String(message.data)));
  const updates: string[] = [];
  client.on('resourceUpdated', (event: { uri: string }) => updates.push(event.uri));
  const resets: unknown[] = [];
  client.on('sessionReset', (event: unknown) => resets.push(event));
  await client.setLoggingLevel('error');
  await client.subscribeResource('test://status');
  expect(await client.callTool('chatty')).toMatchObject({ content: [{ text: 'done on p1' }] });

  pair.hub.crash('p1');
  pair.route.to = 1;
  expect(await within(client.callTool('chatty'))).toMatchObject({ content: [{ text: 'done on p2' }] });
  // The adopter kept the level: only the error-level messages came, from both processes.
  expect(logs.filter((text) => text.startsWith('info'))).toEqual([]);
  expect(logs).toEqual(['error from p1', 'error from p2']);
  // And the subscription: an update raised on the adopter reaches the client, on the GET stream it
  // resumes there once the dead process's connections are gone (in-process: its handler closes).
  await pair.handlers[0]!.close({ deadlineMs: 1_000 });
  await pair.servers[1]!.notifyResourceUpdated('test://status');
  for (let turn = 0; turn < 200 && updates.length === 0; turn++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect(updates).toEqual(['test://status']);
  expect(resets).toEqual([]);
});

test('issue 28 Redis restarted empty: owners make their records again at once; meanwhile a process that misses one answers 503 (resent by clients), not 404', async () => {
  cluster = startCluster(2);
  const [a, b] = cluster.nodes as [Node, Node];
  const sessionId = await openSession(a);
  await cluster.store.delete(sessionId); // the store came back without it
  // B's relay saw the outage; A's has not reported yet: B must not call the session ended.
  b.relay.interrupt();
  const early = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  expect(early.status).toBe(503);
  expect(early.headers.get('retry-after')).toBe('1');
  // A's relay reports its connection back: it makes the record again without waiting for a refresh.
  a.relay.interrupt();
  for (let turn = 0; turn < 200 && (await cluster.store.get(sessionId)) === undefined; turn++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect(JSON.parse((await cluster.store.get(sessionId))!.data!)).toMatchObject({
    owner: 'node-1',
    s: { n: 1 },
  });
  expect(await within(whoami(b, sessionId, 2))).toMatchObject({ node: 'node-1', sessionId });
  expect(a.ended).toEqual([]);
});

test('issue 28 Redis restarted empty: an owner not listening again yet, its record gone: 503 (resent), not 404', async () => {
  cluster = startCluster(2);
  const [a, b] = cluster.nodes as [Node, Node];
  const sessionId = await openSession(a);
  expect(await within(whoami(b, sessionId, 1))).toMatchObject({ node: 'node-1' }); // B knows the owner
  await cluster.store.delete(sessionId);
  b.relay.interrupt();
  b.relay.unheard = true; // A's subscription is not back yet: B's message reaches nobody
  const early = await request(b, 'POST', { sessionId, body: callTool(2, 'whoami') });
  expect(early.status).toBe(503);
  expect(early.headers.get('retry-after')).toBe('1');
  b.relay.unheard = false;
  expect(a.ended).toEqual([]);
});

test('issue 28 Redis restarted empty: an owner whose liveness key comes back late still makes its records again', async () => {
  cluster = startCluster(2);
  const [a] = cluster.nodes as [Node, Node];
  const sessionId = await openSession(a);
  await cluster.store.delete(sessionId);
  // Its own key reads as missing for 1.5 s after the interruption (the next beat is late).
  const back = Date.now() + 1_500;
  const alive = a.relay.alive.bind(a.relay);
  a.relay.alive = (nodeId: string) =>
    nodeId === a.relay.nodeId && Date.now() < back ? Promise.resolve(false) : alive(nodeId);
  a.relay.interrupt();
  for (let turn = 0; turn < 600 && (await cluster.store.get(sessionId)) === undefined; turn++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect(Date.now()).toBeGreaterThanOrEqual(back);
  expect(JSON.parse((await cluster.store.get(sessionId))!.data!)).toMatchObject({ owner: 'node-1' });
  expect(a.ended).toEqual([]);
});

test('issue 28 drain: a 2026-07-28 call running on the draining process finishes with its result; new requests go to the peer', async () => {
  const pair = mcpPair();
  cleanups.push(() => Promise.all(pair.handlers.map((handler) => handler.close({ deadlineMs: 1_000 }))));
  const fetch: typeof globalThis.fetch = (input, init) =>
    pair.handlers[pair.route.to]!(new Request(input, init));
  const client = await within(
    McpClient.connect(new StreamableHttpClientTransport(URL_, { fetch }), { era: 'modern' }),
  );
  cleanups.push(() => client.close());
  const running = client.callTool('gate');
  await within(pair.gates.started.promise);
  const closed = pair.handlers[0]!.close({ deadlineMs: 5_000 });
  // A new request reaching the draining process is served by its peer.
  expect(await within(client.callTool('chatty'))).toMatchObject({ content: [{ text: 'done on p2' }] });
  pair.gates.open.resolve();
  expect(await within(running)).toMatchObject({ content: [{ text: 'through on p1' }] });
  await within(closed, 6_000, 'drain');
});
