/**
 * Issue 12: the handler owns its relay's lifetime: listen() at creation (not awaited, a failure
 * logged), close() last in handler.close(), never a listen that outlives the close.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { Server } from 'keel-mcp/server';
import { createHttpHandler, InMemorySessionStore, type Relay, type RelayListener } from 'keel-mcp/http';
import { TimerTracker, useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

/** A relay whose listen() settles when the test says; it records the order of calls. */
class SlowRelay implements Relay {
  readonly nodeId = 'slow';
  readonly calls: string[] = [];
  settleListen!: (ok: boolean) => void;

  listen(_listener: RelayListener): Promise<void> {
    this.calls.push('listen');
    return new Promise((resolve, reject) => {
      this.settleListen = (ok) => {
        this.calls.push(ok ? 'listening' : 'listen failed');
        if (ok) resolve();
        else reject(new Error('no medium'));
      };
    });
  }
  send(): Promise<boolean> {
    return Promise.resolve(true);
  }
  broadcast(): Promise<void> {
    return Promise.resolve();
  }
  alive(): Promise<boolean> {
    return Promise.resolve(true);
  }
  close(): Promise<void> {
    this.calls.push('close');
    return Promise.resolve();
  }
}

function server(): Server {
  return new Server({ name: 'slow', version: '1' }, { capabilities: {} });
}

test.each([true, false])(
  'a listen still pending at close settles before the relay is closed (listen ok: %s)',
  async (ok) => {
    const relay = new SlowRelay();
    const errors: unknown[] = [];
    const handler = createHttpHandler(server(), {
      backplane: { relay, sessions: new InMemorySessionStore() },
      logger: { debug() {}, error: (_m: string, e: unknown) => void errors.push(e) },
    });
    expect(relay.calls).toEqual(['listen']);
    const closed = handler.close({ deadlineMs: 2_000 });
    // Give close() every chance to run ahead (event-loop turns, not time): it must wait.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(relay.calls).toEqual(['listen']);
    relay.settleListen(ok);
    await within(closed);
    expect(relay.calls).toEqual(['listen', ok ? 'listening' : 'listen failed', 'close']);
    expect(errors).toHaveLength(ok ? 0 : 1);
  },
);

/** A relay whose listen and close never settle (a medium that hangs). */
class HungRelay extends SlowRelay {
  override close(): Promise<void> {
    this.calls.push('close');
    return new Promise(() => {});
  }
}

test('close keeps one deadline for every step, even when the relay hangs (listen and close never settle)', async () => {
  const relay = new HungRelay();
  const handler = createHttpHandler(server(), { backplane: { relay, sessions: new InMemorySessionStore() } });
  // Without one deadline this never resolves: the relay's close is awaited unbounded.
  await within(handler.close({ deadlineMs: 50 }), 5_000, 'handler.close');
  expect(relay.calls).toEqual(['listen', 'close']);
});

describe('retrying a failed listen (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  // Registered after useProcessGuard's hooks, so it runs before them: the guard waits on real timers.
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * Issue 30 item 3: the delay and its doubling are checked, not only that some retry came. Each
   * failure is retried exactly `ms` later (not a millisecond sooner), with no request at all.
   */
  test('a listen that failed is retried on a timer (1 s, doubling to 30 s) without any request, until it works', async () => {
    const relay = new SlowRelay();
    const errors: unknown[] = [];
    const handler = createHttpHandler(server(), {
      sessions: false,
      backplane: { relay, sessions: new InMemorySessionStore() },
      logger: { debug() {}, error: (_m: string, e: unknown) => void errors.push(e) },
    });
    const delays = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000];
    for (const [failure, ms] of delays.entries()) {
      relay.settleListen(false);
      await vi.advanceTimersByTimeAsync(0); // the failure is handled; its retry timer is armed now
      const attempts = relay.calls.filter((call) => call === 'listen').length;
      expect(attempts, `attempts after failure ${failure + 1}`).toBe(failure + 1);
      await vi.advanceTimersByTimeAsync(ms - 1);
      expect(
        relay.calls.filter((call) => call === 'listen'),
        `no retry before ${ms} ms`,
      ).toHaveLength(attempts);
      await vi.advanceTimersByTimeAsync(1);
      expect(
        relay.calls.filter((call) => call === 'listen'),
        `a retry at ${ms} ms`,
      ).toHaveLength(attempts + 1);
    }
    expect(errors).toHaveLength(delays.length);
    relay.settleListen(true);
    await vi.advanceTimersByTimeAsync(0);
    // Listening: no timer is left to retry with, however long nothing happens.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(relay.calls.filter((call) => call === 'listen')).toHaveLength(delays.length + 1);
    await handler.close({ deadlineMs: 1_000 });
    expect(relay.calls.slice(-2)).toEqual(['listening', 'close']);
    expect(errors).toHaveLength(delays.length);
  });
});

test("close clears a pending listen retry at once (no unref'd timer left behind)", async () => {
  const relay = new SlowRelay();
  const timers = new TimerTracker();
  timers.start();
  const handler = createHttpHandler(server(), {
    backplane: { relay, sessions: new InMemorySessionStore() },
    logger: { debug() {}, error() {} },
  });
  relay.settleListen(false);
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  await within(handler.close({ deadlineMs: 1_000 }));
  timers.stop();
  expect(timers.unrefLeft()).toEqual([]);
  expect(relay.calls).toEqual(['listen', 'listen failed', 'close']);
});
