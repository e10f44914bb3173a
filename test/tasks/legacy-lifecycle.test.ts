/**
 * Issue 25, 2025-11-25 format, lifecycle: a task outlives the connection that made it; a waiting
 * tasks/result ends with its request (cancelled, or the connection closing) and leaves no
 * listener, timer or unhandled rejection behind.
 */
import { afterEach, expect, test } from 'vitest';
import fc from 'fast-check';
import { ErrorCode, McpError, type JsonObject } from 'keel-mcp/core';
import { InMemoryTaskStore, type McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { newServer } from './support.js';
import { connectLegacy, type LegacyRaw } from './legacy-support.js';

const guard = useProcessGuard();

let server: McpServer;
let release: (() => void) | undefined;
let finallyRuns = 0;
const open: LegacyRaw[] = [];

function setup(): void {
  server = newServer();
  server.tool(
    'gate',
    { description: 'waits for the test', execution: { taskSupport: 'required' } },
    async (_a, ctx) => {
      try {
        await new Promise<void>((resolve, reject) => {
          release = resolve;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
        });
        return 'released';
      } finally {
        finallyRuns += 1;
      }
    },
  );
}

async function connect(): Promise<LegacyRaw> {
  const raw = await connectLegacy(server);
  open.push(raw);
  return raw;
}

afterEach(async () => {
  release?.();
  release = undefined;
  finallyRuns = 0;
  for (const raw of open.splice(0)) await raw.close();
  await server.close();
});

async function start(raw: LegacyRaw): Promise<string> {
  const created = await raw.request('tools/call', { name: 'gate', task: {} });
  return (created.task as JsonObject).taskId as string;
}

/** Resolves once exactly `count` store listeners are registered (bounded: 1,000 macrotasks). */
async function listeners(count: number): Promise<void> {
  const store = server.taskManager.store as unknown as { listeners: Set<unknown> };
  for (let i = 0; i < 1_000; i += 1) {
    if (store.listeners.size === count) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`the store has ${store.listeners.size} listeners, not ${count}`);
}

test('the client disconnects mid-task: the task keeps running and tasks/result on a new connection reads it', async () => {
  setup();
  const first = await connect();
  const taskId = await start(first);
  await first.close();
  expect(finallyRuns).toBe(0);
  release?.();
  const second = await connect();
  const result = await second.request('tasks/result', { taskId });
  expect(result.content).toEqual([{ type: 'text', text: 'released' }]);
  expect(finallyRuns).toBe(1);
  // The new session did not create it: it is not in its list (no authentication: per session).
  expect((await second.request('tasks/list')).tasks).toEqual([]);
});

test('a waiting tasks/result ends when the connection closes: no timer, listener or rejection left', async () => {
  setup();
  const raw = await connect();
  const taskId = await start(raw);
  const waiting = raw.request('tasks/result', { taskId });
  waiting.catch(() => undefined);
  // Two listeners: the runner's (the manager) and the waiting tasks/result's.
  await listeners(2);
  await raw.close();
  await expect(waiting).rejects.toBeDefined();
  // Only the runner's listener is left: the wait removed its own.
  await listeners(1);
  // The task itself goes on: it belongs to no connection.
  expect(finallyRuns).toBe(0);
  expect(guard.unhandled).toEqual([]);
});

test('cancelling the tasks/result request ends its wait; the task is untouched and a new tasks/result gets it', async () => {
  setup();
  const raw = await connect();
  const taskId = await start(raw);
  const controller = new AbortController();
  const waiting = raw.request('tasks/result', { taskId }, controller.signal);
  waiting.catch(() => undefined);
  await listeners(2);
  controller.abort(new Error('caller gave up'));
  await expect(waiting).rejects.toThrow();
  // The cancel reached the server: its wait removed its store listener.
  await listeners(1);
  expect((await raw.request('tasks/get', { taskId })).status).toBe('working');
  release?.();
  const result = await raw.request('tasks/result', { taskId });
  expect(result.content).toEqual([{ type: 'text', text: 'released' }]);
});

test('the server closing fails a running task and ends a waiting tasks/result with that error', async () => {
  setup();
  const raw = await connect();
  const taskId = await start(raw);
  const waiting = raw.request('tasks/result', { taskId });
  waiting.catch(() => undefined);
  await listeners(2);
  await server.taskManager.close();
  await expect(waiting).rejects.toMatchObject({ code: ErrorCode.InternalError });
  expect(finallyRuns).toBe(1);
});

test('input on the way through another process: tasks/result on a second server sharing the store asks and answers', async () => {
  const store = new InMemoryTaskStore();
  const runner = newServer({ tasks: { store } });
  server = newServer({ tasks: { store } });
  try {
    for (const target of [runner, server])
      target.tool(
        'ask',
        { description: 'asks once', execution: { taskSupport: 'required' } },
        async (_a, ctx) => {
          const answer = await ctx.elicit({
            message: 'Name?',
            schema: { type: 'object', properties: { name: { type: 'string' } } },
          });
          return `hello ${String(answer.content?.name)}`;
        },
      );
    const maker = await connectLegacy(runner);
    open.push(maker);
    const { taskId } = (await maker.request('tools/call', { name: 'ask', task: {} })).task as JsonObject;
    const reader = await connect();
    const asked: JsonObject[] = [];
    reader.client.setRequestHandler('elicitation/create', (params) => {
      asked.push(params);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    const result = await reader.request('tasks/result', { taskId });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Grace' }]);
    expect(asked).toHaveLength(1);
    // The task ran on the first server only.
    expect(server.taskManager.runningCount).toBe(0);
  } finally {
    for (const raw of open.splice(0)) await raw.close();
    await runner.close();
    await store.close();
  }
});

test('a tasks/cancel racing completion: its answer agrees with the one terminal state, which never changes', async () => {
  const seen = new Set<string>();
  await fc.assert(
    fc.asyncProperty(fc.nat(3), fc.nat(3), fc.boolean(), async (releaseTicks, cancelTicks, releaseFirst) => {
      setup();
      const raw = await connectLegacy(server);
      try {
        const taskId = await start(raw);
        const tick = async (n: number) => {
          for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
        };
        const doRelease = async () => {
          await tick(releaseTicks);
          release?.();
        };
        let answer: JsonObject | McpError | undefined;
        const doCancel = async () => {
          await tick(cancelTicks);
          answer = await raw.request('tasks/cancel', { taskId }).catch((error: McpError) => error);
        };
        await Promise.all(releaseFirst ? [doRelease(), doCancel()] : [doCancel(), doRelease()]);
        const after = await raw.request('tasks/get', { taskId });
        if (answer instanceof McpError) {
          expect(answer.code).toBe(ErrorCode.InvalidParams);
          expect(answer.message).toBe("Cannot cancel task: already in terminal status 'completed'");
          expect(after.status).toBe('completed');
          const result = await raw.request('tasks/result', { taskId });
          expect(result.content).toEqual([{ type: 'text', text: 'released' }]);
        } else {
          // `cancelled` was stored before the answer and wins over the work finishing later.
          expect(answer?.status).toBe('cancelled');
          expect(after.status).toBe('cancelled');
          await expect(raw.request('tasks/result', { taskId })).rejects.toMatchObject({
            code: ErrorCode.InternalError,
          });
        }
        seen.add(String(after.status));
        expect(finallyRuns).toBe(1);
      } finally {
        await raw.close();
        await server.close();
        finallyRuns = 0;
        release = undefined;
      }
    }),
    { numRuns: Number(process.env.KEEL_FC_RUNS ?? 40) },
  );
  // The schedules reach both sides of the race.
  expect([...seen].sort()).toEqual(['cancelled', 'completed']);
});
