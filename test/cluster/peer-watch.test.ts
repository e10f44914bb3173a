/**
 * Issue 12, second review (FX3 item 2): one failed liveness read (a Redis timeout) is not a dead
 * peer. The relayed exchanges with that peer live on; only reads failing for longer than the
 * window (5 checks) count as the peer lost.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { PeerWatch } from '../../src/hosts/http/cluster/peer-watch.js';
import type { Relay } from 'keel-mcp/http';
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

/**
 * Issue 30 item 5: the window itself, on fake timers (the tests above only show that one failure
 * is survived and that endless failures are not). Checks every 100 ms; the first failed read
 * starts the window, and the peer is lost at the first failed read a whole window after it.
 */
describe('the failure window (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A relay whose liveness reads answer `answers(call)` (true, false, or a throw: a failed read). */
  function relayAnswering(answers: (call: number) => boolean | 'fail'): Relay & { calls: number } {
    const relay = {
      nodeId: 'watcher',
      calls: 0,
      listen: () => Promise.resolve(),
      send: () => Promise.resolve(true),
      broadcast: () => Promise.resolve(),
      close: () => Promise.resolve(),
      alive(): Promise<boolean> {
        const answer = answers(++relay.calls);
        return answer === 'fail' ? Promise.reject(new Error('ETIMEDOUT')) : Promise.resolve(answer);
      },
    };
    return relay;
  }

  const quiet = { debug() {}, error() {} };

  /** Advance to `at` ms after the start (checks run every 100 ms); how many times onLost ran. */
  async function lostBy(at: number, start: number, lost: () => number): Promise<number> {
    await vi.advanceTimersByTimeAsync(at - (Date.now() - start));
    return lost();
  }

  test('reads failing from the first check: lost at the check a whole window (5 checks) after it, not before', async () => {
    const relay = relayAnswering(() => 'fail');
    const watch = new PeerWatch(relay, 100, quiet);
    const start = Date.now();
    let lost = 0;
    watch.watch('peer', () => lost++);
    // Failed reads at 100 (the window starts), 200, 300, 400, 500: still there.
    expect(await lostBy(599, start, () => lost)).toBe(0);
    expect(relay.calls).toBe(5);
    // The read at 600 fails 500 ms (the window) after the first: lost, once.
    expect(await lostBy(600, start, () => lost)).toBe(1);
    expect(relay.calls).toBe(6);
    // Nothing left to watch: no more reads, no timer.
    expect(vi.getTimerCount()).toBe(0);
    watch.stop();
  });

  test('a read that answers in between starts the window again', async () => {
    // Fails at 100-400, answers at 500, fails from 600 on: lost at 1100, not at 600.
    const relay = relayAnswering((call) => (call === 5 ? true : 'fail'));
    const watch = new PeerWatch(relay, 100, quiet);
    const start = Date.now();
    let lost = 0;
    watch.watch('peer', () => lost++);
    expect(await lostBy(1_099, start, () => lost)).toBe(0);
    expect(await lostBy(1_100, start, () => lost)).toBe(1);
    watch.stop();
  });

  test('an explicit window is kept: 250 ms is lost at the first failed read 250 ms after the first', async () => {
    const relay = relayAnswering(() => 'fail');
    const watch = new PeerWatch(relay, 100, quiet, 250);
    const start = Date.now();
    let lost = 0;
    watch.watch('peer', () => lost++);
    // Failed at 100 (start), 200, 300 (200 ms in): still there; at 400 (300 ms in): lost.
    expect(await lostBy(399, start, () => lost)).toBe(0);
    expect(await lostBy(400, start, () => lost)).toBe(1);
    watch.stop();
  });

  test('a peer that reads as gone is lost at once, whatever the window', async () => {
    const relay = relayAnswering(() => false);
    const watch = new PeerWatch(relay, 100, quiet);
    const start = Date.now();
    let lost = 0;
    watch.watch('peer', () => lost++);
    expect(await lostBy(99, start, () => lost)).toBe(0);
    expect(await lostBy(100, start, () => lost)).toBe(1);
    watch.stop();
  });
});
