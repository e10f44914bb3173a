/**
 * Issue 12, second review (FX3 item 4): with `idleMs: Infinity` sessions never expire and the
 * idle sweep never runs, so the records of live sessions are refreshed by a timer of their own,
 * pending only while this process has records.
 */
import { afterEach, expect, test, vi } from 'vitest';
import type { Logger } from 'keel-mcp/core';
import { SessionRecords } from '../../src/hosts/http/cluster/session-records.js';
import { InMemorySessionStore, MemoryRelayHub } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

afterEach(() => {
  vi.useRealTimers();
});

const logger: Logger = { debug() {}, error() {} };

test('records of sessions that never expire are refreshed on a timer, which stops with the last record', async () => {
  const relay = new MemoryRelayHub().node();
  await relay.listen({ message() {}, broadcast() {} });
  const sessions = new InMemorySessionStore();
  const touched: string[] = [];
  const touch = sessions.touch.bind(sessions);
  sessions.touch = (id, ttlMs) => (touched.push(id), touch(id, ttlMs));
  const records = new SessionRecords(
    { relay, sessions },
    { idleMs: Infinity, maxPerClient: 10 },
    logger,
    () => Promise.resolve(),
  );
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  expect(await records.admit('s1', undefined)).toBeUndefined();
  expect(vi.getTimerCount()).toBe(1);

  await vi.advanceTimersByTimeAsync(records.ttlMs / 8);
  expect(touched).toEqual(['s1']);
  await vi.advanceTimersByTimeAsync(records.ttlMs / 8);
  expect(touched).toEqual(['s1', 's1']);

  records.release('s1');
  expect(vi.getTimerCount()).toBe(0);
  await records.settled();
  await relay.close();
});
