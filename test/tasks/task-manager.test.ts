/**
 * Issue 25, review gaps of the task manager (an internal part, tested directly): two managers on
 * one store stand for two processes of a deployment.
 */
import { expect, test } from 'vitest';
import { KeelError, LocalError } from 'keel-mcp/core';
import { InMemoryTaskStore, type TaskRecord } from 'keel-mcp/server';
import {
  TaskCancelledError,
  TaskManager,
  TaskShutdownError,
  type TaskRun,
} from '../../src/server/tasks/task-manager.js';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Work that waits for its signal (or `release`), recording how its `finally` saw it. */
function blocking(events: string[]) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let ended: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const work = async (run: TaskRun) => {
    events.push('started');
    try {
      await new Promise<void>((resolve, reject) => {
        void released.then(resolve);
        if (run.signal.aborted) reject(run.signal.reason as Error);
        run.signal.addEventListener('abort', () => reject(run.signal.reason as Error), { once: true });
      });
      return { content: [] };
    } finally {
      events.push(`finally:${run.signal.aborted ? (run.signal.reason as Error).name : 'no-abort'}`);
      ended();
    }
  };
  return { work, release: () => release(), ended: done };
}

async function until(read: () => Promise<TaskRecord | undefined>, check: (r: TaskRecord) => boolean) {
  for (let i = 0; i < 400; i += 1) {
    const record = await read();
    if (record && check(record)) return record;
    await sleep(5);
  }
  throw new Error('the record never reached the awaited state');
}

test('issue 25 item b: a cancel stored (by another process) between create and launch still aborts the work, ended cancelled once', async () => {
  const store = new InMemoryTaskStore();
  const a = new TaskManager({ store });
  const b = new TaskManager({ store });
  try {
    const events: string[] = [];
    const { work, release, ended } = blocking(events);
    const record = await a.create('alice', 'tools/call', 'modern');
    await b.cancel(record.id, 'alice');
    a.launch(record, undefined, work);
    await within(ended, 2_000, 'the work to be aborted');
    release();
    expect(events).toEqual(['started', 'finally:TaskCancelledError']);
    expect(await store.get(record.id)).toMatchObject({ status: 'cancelled' });
    expect(a.runningCount).toBe(0);
  } finally {
    await a.close();
    await b.close();
    await store.close();
  }
});

test('issue 25 item c: renewing the lease does not change lastUpdatedAt', async () => {
  const store = new InMemoryTaskStore();
  const tasks = new TaskManager({ store, leaseMs: 30 });
  try {
    const { work, release } = blocking([]);
    const record = await tasks.create('alice', 'tools/call', 'modern');
    tasks.launch(record, undefined, work);
    const renewed = await until(
      () => store.get(record.id),
      (r) => r.leaseUntil! > record.leaseUntil!,
    );
    expect(renewed.lastUpdatedAt).toBe(record.lastUpdatedAt);
    release();
    await until(
      () => store.get(record.id),
      (r) => r.status === 'completed',
    );
  } finally {
    await tasks.close();
    await store.close();
  }
});

test('issue 25 item d: an outcome the store refuses (maxRecordBytes) ends the task failed with a clear error', async () => {
  const store = new InMemoryTaskStore({ maxRecordBytes: 2_000 });
  const reported: unknown[] = [];
  const tasks = new TaskManager({ store }, (error) => reported.push(error));
  try {
    const record = await tasks.create('alice', 'tools/call', 'modern');
    tasks.launch(record, undefined, () => ({ content: [{ type: 'text', text: 'x'.repeat(5_000) }] }));
    const failed = await until(
      () => store.get(record.id),
      (r) => r.status !== 'working',
    );
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(failed.error?.message).toMatch(/could not be stored.*maxRecordBytes/);
    expect(failed.statusMessage).toBe(failed.error?.message);
    expect(tasks.runningCount).toBe(0);
  } finally {
    await tasks.close();
    await store.close();
  }
});

test('issue 25 item d: a question the store refuses (maxRecordBytes) aborts the work and fails the task', async () => {
  const store = new InMemoryTaskStore({ maxRecordBytes: 2_000 });
  const tasks = new TaskManager({ store });
  try {
    const events: string[] = [];
    const record = await tasks.create('alice', 'tools/call', 'modern');
    let finished!: () => void;
    const ended = new Promise<void>((resolve) => (finished = resolve));
    tasks.launch(record, undefined, async (run) => {
      try {
        await run.channel.request('elicitation/create', { message: 'x'.repeat(5_000) });
        return { content: [] };
      } catch (error) {
        events.push(`threw:${(error as Error).name}`);
        throw error;
      } finally {
        finished();
      }
    });
    await within(ended, 2_000, 'the waiting question to be abandoned');
    expect(events).toEqual(['threw:LocalError']);
    const failed = await until(
      () => store.get(record.id),
      (r) => r.status !== 'working',
    );
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(failed.error?.message).toMatch(/maxRecordBytes/);
  } finally {
    await tasks.close();
    await store.close();
  }
});

test('issue 25 item e: the abort reasons of a task are LocalErrors of the one hierarchy, names kept', () => {
  for (const [error, name] of [
    [new TaskCancelledError('c'), 'TaskCancelledError'],
    [new TaskShutdownError('s'), 'TaskShutdownError'],
  ] as const) {
    expect(error).toBeInstanceOf(LocalError);
    expect(error).toBeInstanceOf(KeelError);
    expect(error.name).toBe(name);
  }
});

test('issue 25 item f: task ids are 128 random bits in base64url (22 characters)', async () => {
  const tasks = new TaskManager();
  try {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i += 1) ids.add((await tasks.create(`o${i}`, 'tools/call', 'modern')).id);
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  } finally {
    await tasks.close();
  }
});
