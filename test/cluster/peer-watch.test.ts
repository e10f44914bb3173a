/**
 * Issue 12, second review (FX3 item 2): one failed liveness read (a Redis timeout) is not a dead
 * peer. The relayed exchanges with that peer live on; only reads failing for longer than the
 * window (5 checks) count as the peer lost.
 */
import { afterEach, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, SseReader } from '../http-server/support/harness.js';
import { openSession, request, startCluster, type Cluster, type Node } from './support/cluster.js';

useProcessGuard();

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** `b`'s liveness reads fail while `failing(call)` says so; resolves once `calls` reads were made. */
function aliveFails(b: Node, failing: (call: number) => boolean, calls: number): Promise<void> {
  const alive = b.relay.alive.bind(b.relay);
  const reached = deferred<void>();
  let call = 0;
  b.relay.alive = (nodeId: string) => {
    call++;
    if (call >= calls) reached.resolve();
    return failing(call) ? Promise.reject(new Error('ETIMEDOUT')) : alive(nodeId);
  };
  return reached.promise;
}

test('one failed liveness read of the owner leaves a relayed GET stream open', async () => {
  cluster = startCluster(2, { relayCheckMs: 20 });
  const [a, b] = cluster.nodes as [Node, Node];
  const sessionId = await openSession(a);
  const stream = new SseReader(await request(b, 'GET', { sessionId }));
  await within(stream.next()); // primed: open on the owner

  // The first read fails, the next two answer: the stream must survive all three checks.
  await within(
    aliveFails(b, (call) => call === 1, 3),
    5_000,
    'three liveness checks',
  );

  void a.sessions.get(sessionId)!.notify('notifications/message', { level: 'info', data: 'still here' });
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'still here' } });
  await stream.cancel();
});

test('liveness reads failing for longer than the window cut the relayed stream', async () => {
  cluster = startCluster(2, { relayCheckMs: 20 });
  const [a, b] = cluster.nodes as [Node, Node];
  const sessionId = await openSession(a);
  const stream = new SseReader(await request(b, 'GET', { sessionId }));
  await within(stream.next());

  void aliveFails(b, () => true, 1);
  await within(stream.rest(), 5_000, 'the stream is cut once the window passed');
});
