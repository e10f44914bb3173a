/**
 * Issue 24 point 6: the stdio server's `MeteredInbox` is the core `Inbox` plus a byte count. The
 * count follows the core queue through every way an item leaves it (taken, handed at once to a
 * waiting `next()`, dropped by `return()`), also after the queue was emptied and filled again.
 */
import { expect, test } from 'vitest';
import { Inbox } from '../../src/core/inbox.js';
import { MeteredInbox } from '../../src/transports/stdio/metered-inbox.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

test('bufferedBytes counts what waits, across refills of the queue, and onChange hears each push and take', () => {
  const seen: number[] = [];
  const inbox: MeteredInbox = new MeteredInbox(() => seen.push(inbox.bufferedBytes));
  expect(inbox).toBeInstanceOf(Inbox);
  inbox.push('a', 10);
  inbox.push('b', 20);
  expect([inbox.bufferedBytes, inbox.size]).toEqual([30, 2]);
  expect(inbox.poll()).toEqual({ value: 'a', done: false });
  expect(inbox.poll()).toEqual({ value: 'b', done: false });
  expect([inbox.bufferedBytes, inbox.size]).toEqual([0, 0]);
  // Refilled after it was empty: the sizes are those of the new items, not of the old ones.
  inbox.push('c', 3);
  inbox.push('d', 4);
  inbox.push('e', 5);
  expect(inbox.poll()).toEqual({ value: 'c', done: false });
  expect(inbox.bufferedBytes).toBe(9);
  inbox.push('f', 6);
  expect(inbox.poll()).toEqual({ value: 'd', done: false });
  expect(inbox.poll()).toEqual({ value: 'e', done: false });
  expect(inbox.bufferedBytes).toBe(6);
  expect(inbox.poll()).toEqual({ value: 'f', done: false });
  expect(inbox.poll()).toBeUndefined();
  expect(seen).toEqual([10, 30, 20, 0, 3, 7, 12, 9, 15, 11, 6, 0]);
});

test('an item handed at once to a waiting next() never counts; return() drops the count; push after end is ignored', async () => {
  let changes = 0;
  const inbox = new MeteredInbox(() => changes++);
  const waiting = inbox.next();
  inbox.push('now', 100);
  await expect(waiting).resolves.toEqual({ value: 'now', done: false });
  expect([inbox.bufferedBytes, changes]).toEqual([0, 0]);

  inbox.push('x', 7);
  inbox.push('y', 8);
  await expect(inbox.return()).resolves.toEqual({ value: undefined, done: true });
  expect([inbox.bufferedBytes, inbox.size, inbox.done]).toEqual([0, 0, true]);
  inbox.push('late', 9);
  expect([inbox.bufferedBytes, inbox.size]).toEqual([0, 0]);
  expect(inbox.poll()).toEqual({ value: undefined, done: true });
});

test('end() still delivers what is queued, then done; the plain Inbox behaves the same without counting', async () => {
  for (const inbox of [new MeteredInbox(), new Inbox<unknown>()]) {
    inbox.push(1);
    inbox.push(2);
    inbox.end();
    const read: unknown[] = [];
    for await (const item of inbox) read.push(item);
    expect(read).toEqual([1, 2]);
    expect(inbox.done).toBe(true);
  }
});
