/**
 * Issue 23 item 11: `keel tools -- sleep 30` printed nothing for 31 s. After WAIT_NOTICE_MS with
 * nothing from the server, one line says what keel waits for.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { WAIT_NOTICE_MS, WaitNotice } from '../../src/cli/wait-notice.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => {
  expect(vi.getTimerCount()).toBe(0); // no timer left behind
  vi.useRealTimers();
});

test('issue 23 item 11: one line after the delay, naming the server and what it has not answered', () => {
  const lines: string[] = [];
  const notice = new WaitNotice((line) => lines.push(line), '`sleep 30`');
  notice.waitFor('connecting');
  vi.advanceTimersByTime(WAIT_NOTICE_MS - 1);
  expect(lines).toEqual([]);
  vi.advanceTimersByTime(1);
  expect(lines).toEqual([
    'keel: waiting for `sleep 30` to answer (connecting)… Ctrl+C stops; --timeout <seconds> sets a limit',
  ]);
  vi.advanceTimersByTime(10 * WAIT_NOTICE_MS);
  expect(lines).toHaveLength(1); // once per wait
  notice.waitFor('tools/list');
  vi.advanceTimersByTime(WAIT_NOTICE_MS);
  expect(lines[1]).toBe(
    'keel: waiting for `sleep 30` to answer (tools/list)… Ctrl+C stops; --timeout <seconds> sets a limit',
  );
});

test('nothing when the server is heard from (answer, progress, log, a request) or the wait ends first', () => {
  const lines: string[] = [];
  const notice = new WaitNotice((line) => lines.push(line), 'https://h/mcp', { timeoutGiven: true });
  notice.waitFor('tools/call slow');
  vi.advanceTimersByTime(WAIT_NOTICE_MS / 2);
  notice.heard();
  notice.waitFor('tools/list');
  notice.stop();
  vi.advanceTimersByTime(10 * WAIT_NOTICE_MS);
  expect(lines).toEqual([]);
  notice.waitFor('ping');
  vi.advanceTimersByTime(WAIT_NOTICE_MS);
  expect(lines).toEqual(['keel: waiting for https://h/mcp to answer (ping)… Ctrl+C stops']);
});

test('disabled (not a terminal, or --quiet): never a line, never a timer', () => {
  const lines: string[] = [];
  const notice = new WaitNotice((line) => lines.push(line), 'x', { enabled: false });
  notice.waitFor('connecting');
  expect(vi.getTimerCount()).toBe(0);
  vi.advanceTimersByTime(10 * WAIT_NOTICE_MS);
  expect(lines).toEqual([]);
});
