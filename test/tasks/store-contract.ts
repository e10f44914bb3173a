/**
 * The behaviour every {@link TaskStore} promises (issue 25), run against each implementation.
 *
 * Plug a store in from its own test file:
 *
 *   describeTaskStoreContract('InMemoryTaskStore', async () => {
 *     let now = 1_000;
 *     const store = new InMemoryTaskStore({ now: () => now });
 *     return { store, advance: async (ms) => void (now += ms), close: () => store.close() };
 *   });
 *
 * `advance(ms)` moves the store's clock (a fake clock, or a real wait for Redis: keep the TTLs
 * here short). `peer()` (optional) opens a second store on the same backend (another process's
 * view; the watch test needs it). `keys()` (optional) lists what the store left in its backend,
 * for the leak check after expiry. `close()` releases the fixture.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewTask, TaskRecord, TaskStore } from 'keel-mcp/server';
import { within } from '../helpers/guard.js';

export interface TaskStoreFixture {
  store: TaskStore;
  advance: (ms: number) => Promise<void>;
  peer?: () => Promise<TaskStore>;
  keys?: () => Promise<string[]>;
  close: () => Promise<void>;
}

const limits = { maxPerOwner: 100, maxTotal: 1_000 };
let serial = 0;

/** A new task; ids are random as the contract requires (128 bits at least). */
export function newTask(over: Partial<NewTask> = {}): NewTask {
  serial += 1;
  return {
    id: `${crypto.randomUUID()}-${serial}`,
    owner: 'alice',
    method: 'tools/call',
    format: 'modern',
    status: 'working',
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    ...over,
  };
}

async function made(store: TaskStore, task: NewTask, bounds = limits): Promise<TaskRecord> {
  const out = await store.create(task, bounds);
  if (typeof out === 'string') throw new Error(`create refused: ${out}`);
  return out;
}

export function describeTaskStoreContract(name: string, makeStore: () => Promise<TaskStoreFixture>): void {
  describe(`TaskStore contract: ${name}`, () => {
    const using = async (body: (f: TaskStoreFixture) => Promise<void>) => {
      const fixture = await makeStore();
      try {
        await body(fixture);
      } finally {
        await fixture.close();
      }
    };

    it('create then get returns the same record, with createdAt = lastUpdatedAt', () =>
      using(async ({ store }) => {
        const task = newTask({
          statusMessage: 'starting',
          runner: 'node-1',
          leaseUntil: Date.now() + 30_000,
          result: { content: [], n: 1.5, big: 9007199254740991 },
        });
        const record = await made(store, task);
        expect(record).toMatchObject(task);
        expect(record.lastUpdatedAt).toBe(record.createdAt);
        expect(await store.get(task.id)).toEqual(record);
        expect(await store.get('never-made')).toBeUndefined();
      }));

    it('create refuses past maxPerOwner and maxTotal, and counts live tasks only', () =>
      using(async ({ store, advance }) => {
        const bounds = { maxPerOwner: 2, maxTotal: 3 };
        await made(store, newTask({ ttlMs: 150 }), bounds);
        await made(store, newTask({ ttlMs: 150 }), bounds);
        expect(await store.create(newTask(), bounds)).toBe('owner-limit');
        await made(store, newTask({ owner: 'bob', ttlMs: 150 }), bounds);
        expect(await store.create(newTask({ owner: 'carol' }), bounds)).toBe('total-limit');
        await advance(300);
        await made(store, newTask(), bounds);
        await made(store, newTask({ owner: 'carol' }), bounds);
      }));

    it('maxPerOwner counts running tasks: a finished one frees its room, maxTotal still counts it', () =>
      using(async ({ store }) => {
        const bounds = { maxPerOwner: 1, maxTotal: 3 };
        const first = await made(store, newTask({ leaseUntil: Date.now() + 30_000 }), bounds);
        expect(await store.create(newTask(), bounds)).toBe('owner-limit');
        await store.update(first.id, { status: 'completed', result: { content: [] } });
        const second = await made(store, newTask(), bounds);
        await store.update(second.id, { status: 'cancelled' });
        await made(store, newTask(), bounds);
        // Three records held, two of them finished: the total bound counts them all.
        expect(await store.create(newTask({ owner: 'bob' }), bounds)).toBe('total-limit');
      }));

    it('a deleted task frees its room at once', () =>
      using(async ({ store }) => {
        const bounds = { maxPerOwner: 1, maxTotal: 10 };
        const task = await made(store, newTask(), bounds);
        expect(await store.create(newTask(), bounds)).toBe('owner-limit');
        expect(await store.delete(task.id)).toBe(true);
        expect(await store.delete(task.id)).toBe(false);
        await made(store, newTask(), bounds);
      }));

    it('a terminal record never changes: update and answer return it as it is', () =>
      using(async ({ store }) => {
        const task = await made(store, newTask());
        const done = await store.update(task.id, { status: 'completed', result: { content: [] } });
        expect(done?.status).toBe('completed');
        expect(await store.update(task.id, { status: 'failed', statusMessage: 'no' })).toEqual(done);
        expect(await store.get(task.id)).toEqual(done);

        const asking = await made(
          store,
          newTask({ status: 'input_required', inputRequests: { q: { method: 'roots/list', params: {} } } }),
        );
        const cancelled = await store.update(asking.id, { status: 'cancelled' });
        expect(await store.answer(asking.id, { q: { roots: [] } })).toEqual(cancelled);
        expect(await store.get(asking.id)).toEqual(cancelled);
        expect(await store.update('never-made', { status: 'completed' })).toBeUndefined();
        expect(await store.answer('never-made', {})).toBeUndefined();
      }));

    it('racing updates: exactly one terminal state wins and stays', () =>
      using(async ({ store }) => {
        const task = await made(store, newTask());
        const calls: Promise<TaskRecord | undefined>[] = [];
        for (let i = 0; i < 50; i += 1) {
          calls.push(store.update(task.id, { status: 'completed', result: { content: [], i } }));
          calls.push(store.update(task.id, { status: 'cancelled', statusMessage: `c${i}` }));
        }
        const after = await Promise.all(calls);
        const final = await store.get(task.id);
        expect(['completed', 'cancelled']).toContain(final?.status);
        for (const record of after) expect(record).toEqual(final);
      }));

    it('answer: unknown keys ignored, a partial answer keeps input_required, the last goes back to working', () =>
      using(async ({ store }) => {
        const ask = { method: 'elicitation/create', params: { message: 'sure?' } };
        const task = await made(
          store,
          newTask({ status: 'input_required', inputRequests: { a: ask, b: ask } }),
        );
        const ignored = await store.answer(task.id, { zzz: { action: 'accept' } });
        expect(ignored?.status).toBe('input_required');
        expect(ignored?.inputResponses).toBeUndefined();
        const partial = await store.answer(task.id, { a: { action: 'accept' } });
        expect(partial?.status).toBe('input_required');
        expect(partial?.inputRequests).toEqual({ b: ask });
        expect(partial?.inputResponses).toEqual({ a: { action: 'accept' } });
        const last = await store.answer(task.id, { b: { action: 'decline' }, a: { action: 'late' } });
        expect(last?.status).toBe('working');
        expect(last?.inputRequests).toBeUndefined();
        expect(last?.inputResponses).toEqual({ a: { action: 'accept' }, b: { action: 'decline' } });
      }));

    it('update: undefined removes a field, an absent one is kept', () =>
      using(async ({ store }) => {
        const task = await made(store, newTask({ statusMessage: 'x', runner: 'r1' }));
        const next = await store.update(task.id, { statusMessage: undefined, status: 'working' });
        expect(next?.statusMessage).toBeUndefined();
        expect(next?.runner).toBe('r1');
      }));

    it('list: newest first, only the owner, stable pages with no duplicates while tasks are added', () =>
      using(async ({ store, advance }) => {
        const ids: string[] = [];
        for (let i = 0; i < 7; i += 1) {
          ids.push((await made(store, newTask())).id);
          await made(store, newTask({ owner: 'bob' }));
          await advance(2);
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 10; page += 1) {
          const out = await store.list('alice', cursor, 3);
          expect(out.tasks.length).toBeLessThanOrEqual(3);
          for (const t of out.tasks) expect(t.owner).toBe('alice');
          seen.push(...out.tasks.map((t) => t.id));
          await made(store, newTask()); // newer: never shows up on a later page
          cursor = out.nextCursor;
          if (cursor === undefined) break;
        }
        expect(seen).toEqual([...ids].reverse());
        await expect(store.list('alice', 'not a cursor!', 3)).rejects.toThrow(RangeError);
        await expect(store.list('alice', 'e30', 3)).rejects.toThrow(RangeError);
        // base64url that decodes to bytes that are not UTF-8: still a RangeError, as a rejection.
        await expect(store.list('alice', 'nonsense', 3)).rejects.toThrow(RangeError);
      }));

    it('expiry: a terminal task goes after its ttl; one with a live lease is kept', () =>
      using(async ({ store, advance, keys }) => {
        const done = await made(store, newTask({ ttlMs: 100 }));
        await store.update(done.id, { status: 'completed', result: { content: [] } });
        const leased = await made(store, newTask({ ttlMs: 100, leaseUntil: Date.now() + 60_000 }));
        await advance(300);
        expect(await store.get(done.id)).toBeUndefined();
        expect((await store.get(leased.id))?.status).toBe('working');
        expect((await store.list('alice', undefined, 10)).tasks.map((t) => t.id)).toEqual([leased.id]);
        await store.update(leased.id, { leaseUntil: undefined });
        await advance(50);
        expect(await store.get(leased.id)).toBeUndefined();
        if (keys) expect(await keys()).toEqual([]);
      }));

    it('a record over the byte cap is refused with a RangeError naming it', () =>
      using(async ({ store }) => {
        const big = 'x'.repeat(3 * 1024 * 1024);
        const task = newTask({ result: { content: [{ type: 'text', text: big }] } });
        await expect(store.create(task, limits)).rejects.toThrow(new RegExp(task.id));
        const small = await made(store, newTask());
        await expect(store.update(small.id, { result: { big } })).rejects.toThrow(RangeError);
        expect(await store.get(small.id)).toEqual(small);
      }));

    it('issue 25 item c: renew moves the lease on the store clock, not lastUpdatedAt; only for its runner', () =>
      using(async ({ store, advance }) => {
        const task = await made(store, newTask({ runner: 'r1', leaseMs: 1_000 }));
        expect(task.leaseUntil).toBe(task.createdAt + 1_000);
        expect(task).not.toHaveProperty('leaseMs');
        await advance(20);
        const renewed = await store.renew(task.id, 'r1', 5_000);
        expect(renewed?.leaseUntil).toBeGreaterThanOrEqual(task.createdAt + 5_020);
        expect(renewed?.lastUpdatedAt).toBe(task.createdAt);
        expect(await store.get(task.id)).toEqual(renewed);
        // Another runner's renewal, and any renewal of a terminal record, change nothing.
        expect(await store.renew(task.id, 'r2', 60_000)).toEqual(renewed);
        const done = await store.update(task.id, { status: 'cancelled' });
        expect(await store.renew(task.id, 'r1', 60_000)).toEqual(done);
        expect(await store.renew('never-made', 'r1', 1_000)).toBeUndefined();
      }));

    it('expireLease applies its patch only once the lease has passed, and never to a terminal record', () =>
      using(async ({ store, advance }) => {
        const failed = {
          status: 'failed',
          statusMessage: 'gone',
          error: { code: -32603, message: 'gone' },
        } as const;
        const live = await made(store, newTask({ runner: 'r1', leaseMs: 60_000 }));
        expect(await store.expireLease(live.id, failed)).toEqual(live);
        const stale = await made(store, newTask({ runner: 'r1', leaseMs: 1 }));
        await advance(20);
        expect(await store.expireLease(stale.id, failed)).toMatchObject(failed);
        const done = await made(store, newTask({ runner: 'r1', leaseMs: 1 }));
        const completed = await store.update(done.id, { status: 'completed', result: { content: [] } });
        await advance(20);
        expect(await store.expireLease(done.id, failed)).toEqual(completed);
        expect(await store.expireLease('never-made', failed)).toBeUndefined();
      }));

    it('issue 25 item a: a question answered (on any process) is never published open again', () =>
      using(async ({ store }) => {
        const ask = { method: 'elicitation/create', params: { message: 'sure?' } };
        const task = await made(store, newTask({ status: 'input_required', inputRequests: { a: ask } }));
        await store.answer(task.id, { a: { action: 'accept' } });
        // A publish computed from a read made before the answer came.
        const stale = await store.update(task.id, { status: 'input_required', inputRequests: { a: ask } });
        expect(stale?.status).toBe('working');
        expect(stale?.inputRequests).toBeUndefined();
        const more = await store.update(task.id, {
          status: 'input_required',
          inputRequests: { a: ask, b: ask },
        });
        expect(more?.status).toBe('input_required');
        expect(more?.inputRequests).toEqual({ b: ask });
      }));

    it('issue 25 item a: over any interleaving of answer, publish, cancel, complete, renew and expire from two processes, a terminal record never changes', () =>
      using(async ({ store, peer }) => {
        const other = peer ? await peer() : store;
        const ask = { method: 'elicitation/create', params: { message: 'sure?' } };
        const failed = { status: 'failed', statusMessage: 'gone', inputRequests: undefined } as const;
        const ops: ((s: TaskStore, id: string) => Promise<TaskRecord | undefined>)[] = [
          (s, id) => s.answer(id, { a: { action: 'accept' } }),
          (s, id) => s.answer(id, { b: { action: 'decline' } }),
          (s, id) => s.update(id, { status: 'input_required', inputRequests: { a: ask, b: ask } }),
          (s, id) => s.update(id, { status: 'cancelled', inputRequests: undefined }),
          (s, id) => s.update(id, { status: 'completed', result: { content: [] }, inputRequests: undefined }),
          (s, id) => s.renew(id, 'r1', 60_000),
          (s, id) => s.expireLease(id, failed),
        ];
        try {
          await fc.assert(
            fc.asyncProperty(
              fc.boolean(),
              fc.array(fc.record({ op: fc.nat(ops.length - 1), where: fc.boolean(), wait: fc.boolean() }), {
                minLength: 1,
                maxLength: 8,
              }),
              async (staleLease, steps) => {
                const task = await made(store, newTask({ runner: 'r1', leaseMs: staleLease ? 1 : 60_000 }));
                // Steps run concurrently on the two handles; `wait` lets the earlier ones land first.
                const seen: (TaskRecord | undefined)[] = [];
                let pending: Promise<void>[] = [];
                for (const step of steps) {
                  const call = ops[step.op]!(step.where ? other : store, task.id).then(
                    (r) => void seen.push(r),
                  );
                  pending.push(call);
                  if (step.wait) {
                    await Promise.all(pending);
                    pending = [];
                  }
                }
                await Promise.all(pending);
                const final = await store.get(task.id);
                for (const record of seen)
                  if (record && ['completed', 'failed', 'cancelled'].includes(record.status))
                    expect(record).toEqual(final);
                if (final?.status === 'input_required')
                  expect(Object.keys(final.inputRequests ?? {})).not.toEqual([]);
                for (const key of Object.keys(final?.inputRequests ?? {}))
                  expect(final?.inputResponses ?? {}).not.toHaveProperty(key);
                await store.delete(task.id);
              },
            ),
            { numRuns: Number(process.env.KEEL_FC_RUNS ?? 40) },
          );
        } finally {
          if (other !== store) await other.close();
        }
      }));

    it('watch: a change made by another process is heard', () =>
      using(async ({ store, peer }) => {
        if (!peer) return;
        const other = await peer();
        try {
          const heard: string[] = [];
          let wake: () => void = () => undefined;
          const got = new Promise<void>((resolve) => (wake = resolve));
          const stop = store.watch((id) => {
            heard.push(id);
            wake();
          });
          await (store as { listening?: () => Promise<void> }).listening?.();
          const task = await made(other, newTask());
          await within(got, 2_000, 'watch');
          expect(heard).toContain(task.id);
          stop();
        } finally {
          await other.close();
        }
      }));
  });
}
