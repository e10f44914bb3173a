/**
 * Issue 25: a task's lifecycle. Cancel aborts the handler (its `finally` runs) and the task ends
 * `cancelled`; a cancel racing completion ends in exactly one terminal state that never changes;
 * a client that goes away does not stop the task (its result is read later from a new
 * connection); server close aborts running tasks, leaves them `failed`, and leaves no timer.
 */
import fc from 'fast-check';
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { InMemoryTaskStore, type McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { callTask, connectRaw, newServer, tasks, terminal, waitForTask, type Raw } from './support.js';

useProcessGuard();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(server: McpServer): Raw {
  const raw = connectRaw(server);
  cleanups.push(() => raw.close());
  return raw;
}

function blockingServer(events: string[], options = {}) {
  const server = newServer(options);
  cleanups.push(() => server.close());
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  server.tool('block', { description: 'waits', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    events.push('started');
    try {
      await new Promise<void>((resolve, reject) => {
        void released.then(resolve);
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
      });
      return 'finished';
    } finally {
      events.push(`finally:${ctx.signal.aborted ? (ctx.signal.reason as Error).name : 'no-abort'}`);
    }
  });
  return { server, release: () => release() };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_000 && !check(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  if (!check()) throw new Error(`never: ${what}`);
}

test('tasks/cancel aborts the handler (its finally runs) and the task ends cancelled', async () => {
  const events: string[] = [];
  const { server } = blockingServer(events);
  const raw = open(server);
  const created = await callTask(raw, 'block');
  await until(() => events.includes('started'), 'handler started');
  await tasks(raw, 'tasks/cancel', { taskId: created.taskId });
  // Stored before the ack: the next read is cancelled.
  expect((await tasks(raw, 'tasks/get', { taskId: created.taskId })).status).toBe('cancelled');
  await until(() => events.length === 2, 'finally ran');
  expect(events).toEqual(['started', 'finally:TaskCancelledError']);
});

test('a cancel racing completion ends in exactly one terminal state, which never changes', async () => {
  const seen = new Set<unknown>();
  await fc.assert(
    fc.asyncProperty(fc.nat(3), fc.nat(3), fc.boolean(), async (releaseTicks, cancelTicks, releaseFirst) => {
      const events: string[] = [];
      const { server, release } = blockingServer(events);
      const raw = connectRaw(server);
      try {
        const created = await callTask(raw, 'block');
        const id = created.taskId as string;
        await until(() => events.includes('started'), 'handler started');
        const tick = async (n: number) => {
          for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
        };
        const doRelease = async () => {
          await tick(releaseTicks);
          release();
        };
        const doCancel = async () => {
          await tick(cancelTicks);
          await tasks(raw, 'tasks/cancel', { taskId: id });
        };
        await Promise.all(releaseFirst ? [doRelease(), doCancel()] : [doCancel(), doRelease()]);
        const first = await waitForTask(raw, id, terminal);
        await until(() => events.some((e) => e.startsWith('finally')), 'handler ended');
        await tick(5);
        const again = await tasks(raw, 'tasks/get', { taskId: id });
        expect(again.status).toBe(first.status);
        expect(['completed', 'cancelled']).toContain(first.status);
        seen.add(first.status);
        // Never both: a cancelled task has no result, a completed one was not aborted.
        if (first.status === 'cancelled') expect(again).not.toHaveProperty('result');
        else expect(again.result).toMatchObject({ content: [{ type: 'text', text: 'finished' }] });
        expect(events.filter((e) => e.startsWith('finally'))).toHaveLength(1);
      } finally {
        await raw.close();
        await server.close();
      }
    }),
    { numRuns: Number(process.env.KEEL_FC_RUNS ?? 60) },
  );
  // The schedules reach both sides of the race.
  expect([...seen].sort()).toEqual(['cancelled', 'completed']);
});

test('a client that goes away does not stop its task; a new connection reads the result', async () => {
  const events: string[] = [];
  const store = new InMemoryTaskStore();
  const { server, release } = blockingServer(events, { tasks: { store } });
  cleanups.push(() => store.close());
  const first = connectRaw(server);
  const created = await callTask(first, 'block');
  await until(() => events.includes('started'), 'handler started');
  await first.close();
  expect(events).toEqual(['started']);
  release();
  const second = open(server);
  const done = await waitForTask(second, created.taskId as string, terminal);
  expect(done).toMatchObject({
    status: 'completed',
    result: { content: [{ type: 'text', text: 'finished' }] },
  });
});

test('server close aborts running tasks, leaves them failed, and leaves no timer or rejection', async () => {
  const events: string[] = [];
  const store = new InMemoryTaskStore();
  const { server } = blockingServer(events, { tasks: { store } });
  cleanups.push(() => store.close());
  const raw = connectRaw(server);
  const created = await callTask(raw, 'block');
  await until(() => events.includes('started'), 'handler started');
  await within(server.close(), 2_000, 'server close');
  await until(() => events.length === 2, 'finally ran');
  expect(events).toEqual(['started', 'finally:TaskShutdownError']);
  const record = (await store.get(created.taskId as string)) as unknown as JsonObject;
  expect(record).toMatchObject({
    status: 'failed',
    error: { code: -32603, message: 'The server shut down before the task finished' },
  });
  await raw.close();
});

test('a running task renews its lease; once it ends, the lease stops (no timer left)', async () => {
  const events: string[] = [];
  const store = new InMemoryTaskStore();
  const { server, release } = blockingServer(events, { tasks: { store, leaseMs: 30 } });
  cleanups.push(() => store.close());
  const raw = open(server);
  const created = await callTask(raw, 'block');
  const id = created.taskId as string;
  const first = (await store.get(id))!.leaseUntil!;
  // Renewed at a third of leaseMs: wait (bounded) for a later leaseUntil than the first.
  for (let i = 0; i < 200 && (await store.get(id))!.leaseUntil! <= first; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect((await store.get(id))!.leaseUntil!).toBeGreaterThan(first);
  expect((await tasks(raw, 'tasks/get', { taskId: id })).status).toBe('working');
  release();
  await waitForTask(raw, id, terminal);
  // The guard fails this test if the lease interval outlived the task.
});
