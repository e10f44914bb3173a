/**
 * Issue 25: InMemoryTaskStore keeps the TaskStore contract: terminal records never change, bounds
 * are checked with the insert, a record expires `ttlMs` after creation unless it is running under
 * a live lease, answers move open keys atomically, cursors are opaque, `watch` tells every change,
 * and no timer outlives `close` (or an empty store).
 */
import { expect, test, vi } from 'vitest';
import { InMemoryTaskStore, type NewTask } from 'keel-mcp/server';
import { withLeaseRule } from '../../src/server/tasks/task-lease.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const LIMITS = { maxPerOwner: 10, maxTotal: 100 };

function task(id: string, extra: Partial<NewTask> = {}): NewTask {
  return {
    id,
    owner: 'o',
    method: 'tools/call',
    format: 'modern',
    status: 'working',
    ttlMs: 1_000,
    pollIntervalMs: 100,
    ...extra,
  };
}

test('a terminal record never changes again (update and answer leave it as it is)', async () => {
  const store = new InMemoryTaskStore();
  await store.create(task('a', { inputRequests: { k: { method: 'roots/list', params: {} } } }), LIMITS);
  await store.update('a', { status: 'cancelled', inputRequests: undefined });
  const after = await store.update('a', { status: 'completed', result: { content: [] } });
  expect(after).toMatchObject({ status: 'cancelled' });
  expect(after).not.toHaveProperty('result');
  expect(await store.answer('a', { k: { roots: [] } })).not.toHaveProperty('inputResponses');
  await store.close();
});

test('bounds: per owner, then in total', async () => {
  const store = new InMemoryTaskStore();
  expect(await store.create(task('a'), { maxPerOwner: 1, maxTotal: 2 })).toMatchObject({ id: 'a' });
  expect(await store.create(task('b'), { maxPerOwner: 1, maxTotal: 2 })).toBe('owner-limit');
  expect(await store.create(task('c', { owner: 'p' }), { maxPerOwner: 1, maxTotal: 2 })).toMatchObject({
    id: 'c',
  });
  expect(await store.create(task('d', { owner: 'q' }), { maxPerOwner: 1, maxTotal: 2 })).toBe('total-limit');
  await store.close();
});

test('expiry: after ttlMs a record goes, unless it is not terminal and its lease holds', async () => {
  let now = 1_000;
  const store = new InMemoryTaskStore({ now: () => now });
  await store.create(task('done'), LIMITS);
  await store.update('done', { status: 'completed', result: { content: [] } });
  await store.create(task('running', { leaseUntil: 5_000 }), LIMITS);
  now = 2_500;
  expect(await store.get('done')).toBeUndefined();
  expect(await store.get('running')).toMatchObject({ status: 'working' });
  now = 5_001;
  expect(await store.get('running')).toBeUndefined();
  await store.close();
});

test('the lease rule: a record not terminal whose lease passed reads as failed', () => {
  const base = { ...task('x', { leaseUntil: 10 }), createdAt: 0, lastUpdatedAt: 0 };
  const { view, patch } = withLeaseRule(base, 11);
  expect(view).toMatchObject({
    status: 'failed',
    error: { code: -32603, message: 'The process running this task stopped' },
  });
  expect(patch).toMatchObject({ status: 'failed' });
  expect(withLeaseRule(base, 9).patch).toBeUndefined();
});

test('answer moves open keys only, ignores others, and returns to working when none is left', async () => {
  const store = new InMemoryTaskStore();
  const open = { a: { method: 'roots/list', params: {} }, b: { method: 'roots/list', params: {} } };
  await store.create(task('t'), LIMITS);
  await store.update('t', { status: 'input_required', inputRequests: open });
  const one = await store.answer('t', { a: { roots: [] }, zzz: { roots: [] } });
  expect(one).toMatchObject({
    status: 'input_required',
    inputRequests: { b: open.b },
    inputResponses: { a: { roots: [] } },
  });
  expect(one?.inputResponses).not.toHaveProperty('zzz');
  const two = await store.answer('t', { b: { roots: [] } });
  expect(two?.status).toBe('working');
  expect(two).not.toHaveProperty('inputRequests');
  await store.close();
});

test('list pages newest first with opaque cursors; a bad cursor is a RangeError', async () => {
  let now = 0;
  const store = new InMemoryTaskStore({ now: () => (now += 1) });
  for (const id of ['a', 'b', 'c']) await store.create(task(id, { ttlMs: 1e9 }), LIMITS);
  const first = await store.list('o', undefined, 2);
  expect(first.tasks.map((t) => t.id)).toEqual(['c', 'b']);
  expect(first.nextCursor).toBeDefined();
  expect(first.nextCursor).not.toContain('b');
  const second = await store.list('o', first.nextCursor, 2);
  expect(second.tasks.map((t) => t.id)).toEqual(['a']);
  expect(second.nextCursor).toBeUndefined();
  await expect(store.list('o', 'garbage!', 2)).rejects.toBeInstanceOf(RangeError);
  await store.close();
});

test('watch tells every change; the sweep timer goes with the last record and on close', async () => {
  const store = new InMemoryTaskStore();
  const seen: string[] = [];
  const stop = store.watch((id) => seen.push(id));
  await store.create(task('w'), LIMITS);
  await store.update('w', { statusMessage: 'half' });
  await store.delete('w');
  stop();
  await store.create(task('v'), LIMITS);
  expect(seen).toEqual(['w', 'w', 'w']);
  // The guard fails the test if the store's interval were still pending here.
  await store.close();
});

test('issue 25 item g: the per-owner count follows every removal (delete, expiry on read, sweep) without a scan', async () => {
  let now = 1_000;
  const store = new InMemoryTaskStore({ now: () => now });
  const bounds = { maxPerOwner: 2, maxTotal: 100 };
  for (const id of ['a', 'b']) await store.create(task(id, { ttlMs: 100 }), bounds);
  expect(await store.create(task('c'), bounds)).toBe('owner-limit');
  await store.delete('a');
  expect(await store.create(task('c', { ttlMs: 100 }), bounds)).toMatchObject({ id: 'c' });
  now += 200; // b and c expire: the next create's sweep frees both places
  expect(await store.create(task('d'), bounds)).toMatchObject({ id: 'd' });
  expect(await store.create(task('e'), bounds)).toMatchObject({ id: 'e' });
  expect(await store.create(task('f'), bounds)).toBe('owner-limit');
  // Another owner's records never count against this one, and create does not walk the records.
  const records = (store as unknown as { records: Map<string, unknown> }).records;
  const values = vi.spyOn(records, 'values');
  expect(await store.create(task('g', { owner: 'p' }), bounds)).toMatchObject({ id: 'g' });
  expect(values).not.toHaveBeenCalled();
  await store.close();
});
