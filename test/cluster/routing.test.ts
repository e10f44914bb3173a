/**
 * Issue 12: any process serves a legacy session another process owns, by relaying the HTTP
 * exchange to the owner. Three handlers, one MemoryRelayHub, one session store; Keel's own client
 * behind a round-robin "load balancer" (consecutive requests go to handler 1, 2, 3, 1, ...).
 */
import { afterEach, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import type { JsonObject } from 'keel-mcp/core';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { SseReader } from '../http-server/support/harness.js';
import { callTool, openSession, request, startCluster, URL_, type Cluster } from './support/cluster.js';

useProcessGuard();

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

function firstText(result: JsonObject): string {
  return ((result.content as JsonObject[])[0]!.text as string) ?? '';
}

async function connect(
  c: Cluster,
  options: { openGetStream?: boolean; answer?: string } = {},
): Promise<McpClient> {
  const transport = new StreamableHttpClientTransport(URL_, {
    fetch: c.fetch,
    openGetStream: options.openGetStream ?? false,
    headers: { 'x-probe': 'through the balancer' },
  });
  return within(
    McpClient.connect(transport, {
      era: 'legacy',
      elicitation: { form: () => ({ action: 'accept', content: { answer: options.answer ?? 'yes' } }) },
    }),
    5_000,
    'connect',
  );
}

test('initialize on one handler, calls through the others: one session, served by its owner', async () => {
  cluster = startCluster();
  const client = await connect(cluster);
  const calls = [];
  for (let i = 0; i < 3; i++) calls.push(JSON.parse(firstText(await within(client.callTool('whoami')))));
  const sessionId = calls[0].sessionId as string;
  expect(calls).toEqual([0, 1, 2].map(() => ({ node: 'node-1', sessionId, probe: 'through the balancer' })));
  // The balancer spread the calls: initialize on 1, `initialized` on 2, the calls on 3, 1, 2.
  expect(cluster.log.map((entry) => [entry.node, entry.body?.method])).toEqual([
    [0, 'initialize'],
    [1, 'notifications/initialized'],
    [2, 'tools/call'],
    [0, 'tools/call'],
    [1, 'tools/call'],
  ]);
  expect(cluster.nodes.map((node) => node.started.length)).toEqual([1, 0, 0]);
  expect(JSON.parse((await cluster.store.get(sessionId))!.data!)).toMatchObject({ owner: 'node-1' });
  await client.close();
  // close() sent DELETE through the balancer (to node 3): the session ended on its owner.
  expect(cluster.log.at(-1)).toMatchObject({ node: 2, method: 'DELETE' });
  expect(cluster.nodes[0]!.ended).toEqual([[sessionId, 'deleted']]);
  expect(await cluster.store.get(sessionId)).toBeUndefined();
});

test('a tool on the owner that elicits gets the answer POSTed through another handler', async () => {
  cluster = startCluster();
  const client = await connect(cluster, { answer: 'forty-two' });
  // initialize and `initialized` went to 1 and 2; the call goes through 2, the answer through 3.
  cluster.route = (k) => [0, 1, 1, 2][k] ?? k % 3;
  const result = await within(client.callTool('ask'));
  expect(firstText(result)).toBe('node-1 got forty-two');
  const answer = cluster.log.find(
    (entry) => entry.body && 'result' in entry.body && !('method' in entry.body),
  );
  expect(answer?.node).toBe(2);
  expect(cluster.log.find((entry) => entry.body?.method === 'tools/call')?.node).toBe(1);
  // Only the owner ever ran a handler or held the session.
  expect(cluster.nodes.map((node) => node.probes.started.size)).toEqual([1, 0, 0]);
  expect(cluster.nodes.map((node) => node.sessions.size)).toEqual([1, 0, 0]);
  await client.close();
});

test('a GET stream through another handler gets what the owner sends to the session', async () => {
  cluster = startCluster();
  const [a, , c] = cluster.nodes as [(typeof cluster.nodes)[0], unknown, (typeof cluster.nodes)[0]];
  const sessionId = await openSession(a);
  const get = await request(c, 'GET', { sessionId });
  expect(get.status).toBe(200);
  expect(get.headers.get('content-type')).toBe('text/event-stream');
  expect(get.headers.get('mcp-session-id')).toBe(sessionId);
  const stream = new SseReader(get);
  // The owner sends an unrelated notification: it goes to the session's GET stream, held on C.
  await within(
    a.sessions.get(sessionId)!.notify('notifications/message', { level: 'info', data: 'hello C' }),
  );
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'hello C' } });
  // The stream is the session's one GET stream: a second one, anywhere, gets 409.
  expect((await request(a, 'GET', { sessionId })).status).toBe(409);
  await stream.cancel();
});

test('a request for a session nobody holds gets 404 on every handler; no session id still needs one', async () => {
  cluster = startCluster();
  for (const node of cluster.nodes) {
    const response = await request(node, 'POST', {
      sessionId: 'no-such-session',
      body: callTool(1, 'whoami'),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as JsonObject).error).toMatchObject({ message: 'Session not found' });
  }
  const noId = await request(cluster.nodes[1]!, 'POST', { body: callTool(1, 'whoami') });
  expect(noId.status).toBe(400);
});
