/**
 * Issue 14: a connection's pending outbound requests share one timer (DeadlineTimer), armed for
 * the earliest deadline, instead of a `setTimeout` each. Each request still times out at its own
 * deadline, progress still moves only its own, and no timer is left once nothing is pending (so
 * none keeps the process alive). Timers are faked.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { ConnectionClosedError, RequestTimeoutError, type JsonObject } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { connectionPair, track } from './support/outbound-pair.js';

useProcessGuard();
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

test('a hundred pending requests hold one timer; answering them all leaves none', async () => {
  const { connection, peer } = connectionPair();
  const calls = Array.from({ length: 100 }, (_, i) => track(connection.request('slow', { i })));
  expect(vi.getTimerCount()).toBe(1);
  for (let i = 0; i < 100; i++) {
    const request = await peer.read('a request');
    await peer.send({ jsonrpc: '2.0', id: request.id, result: { i } });
  }
  await vi.advanceTimersByTimeAsync(0);
  expect(calls.every((call) => call.settled && !(call.outcome instanceof Error))).toBe(true);
  expect(vi.getTimerCount()).toBe(0);
  await connection.close();
});

test('each request times out at its own deadline, whatever order they were made in', async () => {
  const { connection } = connectionPair();
  const late = track(connection.request('a', {}, { timeoutMs: 1_000 }));
  const early = track(connection.request('b', {}, { timeoutMs: 500 }));
  const latest = track(connection.request('c', {}, { timeoutMs: 2_000 }));
  await vi.advanceTimersByTimeAsync(499);
  expect([late.settled, early.settled, latest.settled]).toEqual([false, false, false]);
  await vi.advanceTimersByTimeAsync(1);
  expect(early.outcome).toBeInstanceOf(RequestTimeoutError);
  expect([late.settled, latest.settled]).toEqual([false, false]);
  expect(vi.getTimerCount()).toBe(1);
  await vi.advanceTimersByTimeAsync(500);
  expect(late.outcome).toBeInstanceOf(RequestTimeoutError);
  expect(latest.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1_000);
  expect((latest.outcome as RequestTimeoutError).message).toContain('2000');
  expect(vi.getTimerCount()).toBe(0);
  await connection.close();
});

test('progress moves only its own request; the other times out on time', async () => {
  const { connection, peer } = connectionPair();
  const watched = track(connection.request('slow', {}, { timeoutMs: 1_000, onprogress: () => undefined }));
  const token = ((await peer.read('the first request')).params?._meta as JsonObject).progressToken as number;
  const other = track(connection.request('other', {}, { timeoutMs: 1_500 }));
  for (let t = 0; t < 4; t++) {
    await vi.advanceTimersByTimeAsync(600);
    await peer.notify('notifications/progress', { progressToken: token, progress: t });
  }
  // 2.4 s in: the other request timed out at 1.5 s; the watched one is kept alive by progress.
  expect(other.outcome).toBeInstanceOf(RequestTimeoutError);
  expect(watched.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(watched.outcome).toBeInstanceOf(RequestTimeoutError);
  expect(vi.getTimerCount()).toBe(0);
  await connection.close();
});

test('a request made from a timeout callback gets its own deadline', async () => {
  const { connection } = connectionPair();
  let second: { outcome: unknown; settled: boolean } | undefined;
  const first = connection.request('a', {}, { timeoutMs: 100 }).catch(() => {
    second = track(connection.request('b', {}, { timeoutMs: 300 }));
  });
  await vi.advanceTimersByTimeAsync(100);
  await first;
  expect(second?.settled).toBe(false);
  expect(vi.getTimerCount()).toBe(1);
  await vi.advanceTimersByTimeAsync(300);
  expect(second?.outcome).toBeInstanceOf(RequestTimeoutError);
  expect(vi.getTimerCount()).toBe(0);
  await connection.close();
});

// Issue 30 item 9: the close path on its own (PendingTable.failAll empties the table without
// take/remove; only the table's drained() call stops the timer there).
test.each([
  ['close()', (pair: ReturnType<typeof connectionPair>) => pair.connection.close()],
  ['the peer ending the input', async (pair: ReturnType<typeof connectionPair>) => pair.local.endInput()],
])('%s with requests pending fails them and leaves no deadline timer', async (_what, end) => {
  const pair = connectionPair();
  const calls = [
    track(pair.connection.request('a', {}, { timeoutMs: 1_000 })),
    track(pair.connection.request('b', {}, { timeoutMs: 5_000 })),
  ];
  expect(vi.getTimerCount()).toBe(1);
  await end(pair);
  await vi.advanceTimersByTimeAsync(0);
  for (const call of calls) expect(call.outcome).toBeInstanceOf(ConnectionClosedError);
  expect(vi.getTimerCount()).toBe(0);
  await pair.connection.close();
});
