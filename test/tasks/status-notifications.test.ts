/**
 * Issue 25: task status notifications in both formats. 2025-11-25: `notifications/tasks/status`
 * (the full flat task) to the session that made the task, on each change, while it is connected.
 * 2026-07-28: `notifications/tasks` (the task as `tasks/get` shows it) on a `subscriptions/listen`
 * that names the task in `notifications.taskIds`, tagged with the subscription id; only the
 * caller's own tasks are acknowledged; without the extension declared the listen is -32021.
 * Nothing is written after a connection closed, and no watcher is left behind.
 */
import { afterEach, expect, test } from 'vitest';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import type { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectLegacy, type LegacyRaw } from './legacy-support.js';
import { callTask, connectRaw, EXT, newServer, tasks, terminal, waitForTask, type Raw } from './support.js';

useProcessGuard();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup(), 5_000, 'cleanup');
});

const SUB = 'io.modelcontextprotocol/subscriptionId';

/** A server whose `gated` tool reports progress, then waits for `open()` (or its abort). */
function gatedServer(): { server: McpServer; open: () => void; started: Promise<void> } {
  let open!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const running = new Promise<void>((resolve) => (started = resolve));
  const server = newServer({ tasks: { pollIntervalMs: 50 } });
  cleanups.push(() => server.close());
  server.tool('gated', { description: 'waits', execution: { taskSupport: 'optional' } }, async (_a, ctx) => {
    await ctx.progress(1, 2, 'half way');
    started();
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      void gate.then(resolve);
    });
    return 'opened';
  });
  return { server, open, started: running };
}

/** Bounded wait (2,000 macrotasks) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`never: ${what}`);
}

function legacy(server: McpServer): Promise<LegacyRaw> {
  return connectLegacy(server).then((raw) => {
    cleanups.push(() => raw.close());
    return raw;
  });
}

function modern(server: McpServer): Raw {
  const raw = connectRaw(server);
  cleanups.push(() => raw.close());
  return raw;
}

test('2025-11-25: notifications/tasks/status carries the full task on each change, to the end', async () => {
  const { server, open, started } = gatedServer();
  const raw = await legacy(server);
  const created = await raw.request('tools/call', { name: 'gated', arguments: {}, task: {} });
  const taskId = (created.task as JsonObject).taskId as string;
  await within(started, 5_000, 'tool started');
  open();
  const statuses = () =>
    raw.notifications
      .filter((n) => n.method === 'notifications/tasks/status' && n.params.taskId === taskId)
      .map((n) => n.params);
  await until(() => statuses().some((t) => t.status === 'completed'), 'completed notified');
  const last = statuses().at(-1)!;
  expect(last).toMatchObject({ taskId, status: 'completed', ttl: expect.any(Number) });
  expect(typeof last.createdAt).toBe('string');
  expect(typeof last.lastUpdatedAt).toBe('string');
  // No result in a status notification (2025-11-25: tasks/result carries it).
  expect(last.result).toBeUndefined();
  expect(statuses().some((t) => t.statusMessage === 'half way')).toBe(true);
});

test('2025-11-25: a session that closed gets nothing more, and the task still ends', async () => {
  const { server, open, started } = gatedServer();
  const raw = await legacy(server);
  const created = await raw.request('tools/call', { name: 'gated', arguments: {}, task: {} });
  const taskId = (created.task as JsonObject).taskId as string;
  await within(started, 5_000, 'tool started');
  await raw.close();
  const seen = raw.notifications.length;
  open();
  const other = await legacy(server);
  const done = await other.request('tasks/result', { taskId });
  expect(done.content).toEqual([{ type: 'text', text: 'opened' }]);
  expect(raw.notifications).toHaveLength(seen);
});

test('2026-07-28: a listen naming the task gets notifications/tasks, tagged, as tasks/get shows it', async () => {
  const { server, open, started } = gatedServer();
  const raw = modern(server);
  const created = await callTask(raw, 'gated');
  const taskId = created.taskId as string;
  await within(started, 5_000, 'tool started');
  const listening = raw.client.request('subscriptions/listen', {
    notifications: { taskIds: [taskId, 'not-a-task'] },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } },
    },
  });
  listening.catch(() => undefined);
  await until(
    () => raw.notifications.some((n) => n.method === 'notifications/subscriptions/acknowledged'),
    'ack',
  );
  const ack = raw.notifications.find((n) => n.method === 'notifications/subscriptions/acknowledged')!;
  // The unknown id is not acknowledged.
  expect(ack.params.notifications).toEqual({ taskIds: [taskId] });
  const subscription = (ack.params._meta as JsonObject)[SUB];
  open();
  await until(
    () =>
      raw.notifications.some((n) => n.method === 'notifications/tasks' && n.params.status === 'completed'),
    'completed notified',
  );
  const note = raw.notifications.find(
    (n) => n.method === 'notifications/tasks' && n.params.status === 'completed',
  )!;
  expect((note.params._meta as JsonObject)[SUB]).toBe(subscription);
  const got = await waitForTask(raw, taskId, terminal);
  const { _meta: _tag, ...task } = note.params;
  // The same task as tasks/get shows it (less the envelope: its resultType and result _meta).
  const { resultType: _type, _meta: _envelope, ...shown } = got;
  expect(task).toEqual(shown);
  expect(task.result).toEqual({ content: [{ type: 'text', text: 'opened' }] });
});

test('2026-07-28: taskIds without the extension declared is -32021; another owner’s task is not acknowledged', async () => {
  const { server } = gatedServer();
  const raw = modern(server);
  await expect(
    raw.modern('subscriptions/listen', { notifications: { taskIds: ['x'] } }),
  ).rejects.toMatchObject({ code: ErrorCode.MissingRequiredClientCapability });
  await expect(
    raw.modern(
      'subscriptions/listen',
      { notifications: { taskIds: 'x' } },
      { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } },
    ),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });

  // alice's task, bob's listen: nothing to acknowledge, so the listen ends at once.
  let who = 'alice';
  raw.serverTransport.messageInfo = () => ({ authInfo: { token: who, clientId: who, scopes: [] } });
  const created = await callTask(raw, 'gated');
  who = 'bob';
  const ended = await tasks(raw, 'subscriptions/listen', {
    notifications: { taskIds: [created.taskId as string] },
  });
  expect(ended._meta).toBeDefined();
  const ack = raw.notifications.find((n) => n.method === 'notifications/subscriptions/acknowledged')!;
  expect(ack.params.notifications).toEqual({});
});
