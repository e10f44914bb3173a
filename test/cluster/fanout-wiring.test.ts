/**
 * Issue 12: a handler with a backplane joins its server to the deployment's notification fan-out
 * over the relay. A server-wide notification raised on one process reaches a session another
 * process owns, exactly once, and nothing is broadcast or received after the handler closed.
 */
import { afterEach, expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { useProcessGuard, within } from '../helpers/guard.js';
import { createRecordingPair } from '../helpers/recording-transport.js';
import { SseReader } from '../http-server/support/harness.js';
import { openSession, request, startCluster, until, type Cluster } from './support/cluster.js';

useProcessGuard();

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

test('a broadcast raised on node 2 reaches the GET stream (held on node 3) of a session node 1 owns, once', async () => {
  cluster = startCluster();
  const [a, b, c] = cluster.nodes as [Cluster['nodes'][0], Cluster['nodes'][0], Cluster['nodes'][0]];
  const sessionId = await openSession(a);
  const get = await request(c, 'GET', { sessionId });
  expect(get.status).toBe(200);
  const stream = new SseReader(get);
  b.server.broadcast('notifications/message', { level: 'info', data: 'raised on node 2' });
  a.server.broadcast('notifications/message', { level: 'info', data: 'raised on node 1' });
  // Node 1's own broadcast is delivered at once; node 2's comes over the relay. Both once.
  const seen = [await within(stream.nextMessage()), await within(stream.nextMessage())];
  expect(seen.map((message) => message?.params)).toEqual(
    expect.arrayContaining([
      { level: 'info', data: 'raised on node 2' },
      { level: 'info', data: 'raised on node 1' },
    ]),
  );
  // A marker after both: had either come twice, the duplicate would arrive before it.
  void a.sessions.get(sessionId)!.notify('notifications/message', { level: 'info', data: 'marker' });
  expect((await within(stream.nextMessage()))?.params).toEqual({ level: 'info', data: 'marker' });
  await stream.cancel();
});

test('a closed handler leaves the fan-out: it neither broadcasts nor receives', async () => {
  cluster = startCluster(2);
  const [a, b] = cluster.nodes as [Cluster['nodes'][0], Cluster['nodes'][0]];
  const sessionId = await openSession(a);
  // Receiving is seen on a session of node 2's server that outlives its HTTP handler (the
  // handler's own sessions end with it): a client connected to that server in memory.
  const [clientSide, serverSide] = createRecordingPair();
  const watcher = b.server.connect(serverSide);
  const client = new Client({ name: 'watcher', version: '1' });
  const received: unknown[] = [];
  client.setNotificationHandler('notifications/message', (params) => void received.push(params.data));
  await within(client.connect(clientSide));
  try {
    // While open: node 1's broadcast reaches it (so the check below can see a delivery).
    a.server.broadcast('notifications/message', { level: 'info', data: 'before close' });
    await until(() => received.length === 1, 'the broadcast before the close');

    await b.handler.close({ deadlineMs: 1_000 });
    b.server.broadcast('notifications/message', { level: 'info', data: 'after close' });
    expect(b.relay.afterClose).toEqual([]);
    // Issue 30 item 7: nothing from the others reaches node 2 any more: neither a broadcast made
    // now nor one that the medium still hands to the listener node 2 had.
    a.server.broadcast('notifications/message', { level: 'info', data: 'broadcast after close' });
    b.relay.deliverBroadcast(
      a.relay.nodeId,
      JSON.stringify({
        t: 'notify',
        method: 'notifications/message',
        params: { level: 'info', data: 'delivered after close' },
      }),
    );
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    // A marker on that session itself: anything delivered before it would arrive in front of it.
    void watcher.notify('notifications/message', { level: 'info', data: 'marker' });
    await until(() => received.includes('marker'), 'the marker');
    // Its own broadcast still reaches its own session (delivered here, published nowhere).
    expect(received).toEqual(['before close', 'after close', 'marker']);
  } finally {
    await client.close();
  }

  // Node 1 still delivers its own; nothing from node 2 is in front of it.
  const get = await request(a, 'GET', { sessionId });
  const stream = new SseReader(get);
  a.server.broadcast('notifications/message', { level: 'info', data: 'still here' });
  expect((await within(stream.nextMessage()))?.params).toEqual({ level: 'info', data: 'still here' });
  await stream.cancel();
});
