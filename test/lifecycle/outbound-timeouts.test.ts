/**
 * Issue 9 item 13: `timeoutMs: Infinity` turns off the idle timeout only (the total cap still
 * applies); timeouts beyond setTimeout's 2^31-1 ms fire at the right time, not after 1 ms; negative
 * or NaN timeouts are refused at once with a RangeError. Timers are faked.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { RequestTimeoutError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { connectionPair, track } from './support/outbound-pair.js';
import { withMethod } from './support/raw-peer.js';

useProcessGuard();
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const DAY = 24 * 60 * 60 * 1000;

test('timeoutMs: Infinity still stops at maxTotalTimeoutMs', async () => {
  const { connection } = connectionPair();
  const call = track(connection.request('slow', {}, { timeoutMs: Infinity, maxTotalTimeoutMs: 5_000 }));
  await vi.advanceTimersByTimeAsync(4_999);
  expect(call.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(call.outcome).toBeInstanceOf(RequestTimeoutError);
  expect((call.outcome as RequestTimeoutError).message).toContain('5000');
  await connection.close();
});

test('timeoutMs: Infinity with maxTotalTimeoutMs: Infinity never times out (close still ends it)', async () => {
  const { connection } = connectionPair();
  const call = track(connection.request('slow', {}, { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity }));
  await vi.advanceTimersByTimeAsync(365 * DAY);
  expect(call.settled).toBe(false);
  expect(vi.getTimerCount()).toBe(0);
  await connection.close();
  await vi.advanceTimersByTimeAsync(0);
  expect(call.settled).toBe(true);
});

test('a timeout beyond 2^31-1 ms fires at its time, not after 1 ms', async () => {
  const { connection, local } = connectionPair();
  const timeoutMs = 2 ** 31 + 5; // ~24.9 days
  const call = track(connection.request('slow', {}, { timeoutMs, maxTotalTimeoutMs: 60 * DAY }));
  await vi.advanceTimersByTimeAsync(1_000);
  expect(call.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(timeoutMs - 1_001);
  expect(call.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(call.outcome).toBeInstanceOf(RequestTimeoutError);
  expect(withMethod(local.sent, 'notifications/cancelled')).toHaveLength(1);
  await connection.close();
});

test('a total cap beyond 2^31-1 ms fires at its time', async () => {
  const { connection } = connectionPair();
  const call = track(connection.request('slow', {}, { timeoutMs: Infinity, maxTotalTimeoutMs: 50 * DAY }));
  await vi.advanceTimersByTimeAsync(50 * DAY - 1);
  expect(call.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(call.outcome).toBeInstanceOf(RequestTimeoutError);
  await connection.close();
});

test('progress moves the idle deadline but never the total cap', async () => {
  const { connection, peer } = connectionPair();
  const call = track(
    connection.request(
      'slow',
      {},
      { timeoutMs: 1_000, maxTotalTimeoutMs: 2_500, onprogress: () => undefined },
    ),
  );
  const request = await peer.read('the request');
  const token = (request.params?._meta as { progressToken: number }).progressToken;
  for (let i = 0; i < 2; i++) {
    await vi.advanceTimersByTimeAsync(900);
    await peer.notify('notifications/progress', { progressToken: token, progress: i });
    await vi.advanceTimersByTimeAsync(0);
  }
  expect(call.settled).toBe(false); // 1 800 ms: idle deadline moved twice
  await vi.advanceTimersByTimeAsync(699);
  expect(call.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect((call.outcome as RequestTimeoutError).message).toContain('2500');
  await connection.close();
});

test('negative or NaN timeouts reject at once with a RangeError and send nothing', async () => {
  const { connection, local } = connectionPair();
  await expect(connection.request('x', {}, { timeoutMs: -1 })).rejects.toThrow(RangeError);
  await expect(connection.request('x', {}, { timeoutMs: Number.NaN })).rejects.toThrow(/timeoutMs/);
  await expect(connection.request('x', {}, { maxTotalTimeoutMs: -5 })).rejects.toThrow(/maxTotalTimeoutMs/);
  expect(local.sent).toEqual([]);
  expect(connection.pendingCount).toBe(0);
  await connection.close();
});
