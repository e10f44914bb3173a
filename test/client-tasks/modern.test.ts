/**
 * Issue 25, client, 2026-07-28 format: McpClient against Keel's own server (the tasks extension).
 * A task starts, is polled to its end, asks on the way (answered by the usual handlers through
 * tasks/update), is cancelled, fails, and a plain callTool of a task-only tool runs it as a task.
 * Closing the client mid-poll leaves no timer, request or unhandled rejection.
 */
import { expect, test } from 'vitest';
import {
  McpClient,
  RemovedInModernEraError,
  TaskCancelledError,
  TasksNotSupportedError,
  type McpClientOptions,
  type TaskInfo,
} from 'keel-mcp/client';
import { ConnectionClosedError, ErrorCode, McpError, RequestAbortedError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { z } from 'zod';
import { useProcessGuard, within } from '../helpers/guard.js';
import { requestsSent, useModern } from '../client-modern/helpers.js';

useProcessGuard();
const { connect, track } = useModern();
const EXT = 'io.modelcontextprotocol/tasks';

interface Gate {
  started: Promise<void>;
  aborted: Promise<unknown>;
  release: () => void;
}

function gate(): Gate & { start: () => void; abort: (reason: unknown) => void; released: Promise<void> } {
  let start!: () => void;
  let abort!: (reason: unknown) => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const aborted = new Promise<unknown>((resolve) => (abort = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { started, aborted, release, start, abort, released };
}

function tasksServer(blocker = gate()): McpServer {
  const server = new McpServer({ name: 'tasks', version: '1' }, { tasks: { pollIntervalMs: 50 } });
  track(() => server.close());
  server.tool(
    'quick',
    { description: 'optional', execution: { taskSupport: 'optional' } },
    async (_a, ctx) => {
      await ctx.progress(1, 2, 'half way');
      return 'quick done';
    },
  );
  server.tool('must', { description: 'required', execution: { taskSupport: 'required' } }, () => 'must done');
  server.tool('ask', { description: 'asks', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', schema: z.object({ name: z.string() }) });
    return `hello ${answer.action === 'accept' ? answer.content.name : 'nobody'}`;
  });
  server.tool('broken', { description: 'fails', execution: { taskSupport: 'required' } }, () => {
    throw new McpError(ErrorCode.InvalidParams, 'bad job');
  });
  server.tool('block', { description: 'waits', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    blocker.start();
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      void blocker.released.then(resolve);
    });
    if (ctx.signal.aborted) blocker.abort(ctx.signal.reason);
    return 'released';
  });
  return server;
}

const HANDLERS: McpClientOptions = {
  elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
};

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

test('startToolTask: a handle at once, statuses to the end, the result, the extension declared per request', async () => {
  const { client, wire } = await connect(tasksServer(), HANDLERS);
  const seen: TaskInfo[] = [];
  const task = await client.startToolTask('quick', {}, { onStatus: (t) => seen.push(t) });
  expect(task.taskId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
  const statuses: string[] = [];
  const reading = (async () => {
    for await (const t of task.statuses()) statuses.push(t.status);
  })();
  const result = await within(task.result(), 5_000, 'task result');
  await within(reading, 5_000, 'statuses end');
  expect(text(result)).toBe('quick done');
  expect(task.status).toBe('completed');
  expect(statuses.at(-1)).toBe('completed');
  expect(seen.at(-1)).toMatchObject({ status: 'completed', statusMessage: 'half way' });
  const sent = requestsSent(wire).filter((r) => r.method === 'tools/call' || r.method.startsWith('tasks/'));
  for (const request of sent)
    expect(request.params._meta).toMatchObject({
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } },
    });
  expect(sent.map((r) => r.method)).toContain('tasks/get');
  expect(await client.getTask(task.taskId)).toMatchObject({ status: 'completed', taskId: task.taskId });
});

test('input on the way: the elicitation handler answers inputRequests through tasks/update', async () => {
  const asked: string[] = [];
  const { client, wire } = await connect(tasksServer(), {
    elicitation: {
      form: (params) => {
        asked.push(params.message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  });
  const task = await client.startToolTask('ask', {});
  expect(text(await within(task.result(), 5_000, 'ask result'))).toBe('hello Ada');
  expect(asked).toEqual(['Name?']);
  const updates = requestsSent(wire).filter((r) => r.method === 'tasks/update');
  expect(updates).toHaveLength(1);
  expect(updates[0]!.params).toMatchObject({
    taskId: task.taskId,
    inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Ada' } } },
  });
});

test('cancel(): tasks/cancel is sent, the handler aborts, result() rejects with TaskCancelledError', async () => {
  const blocker = gate();
  const { client, wire } = await connect(tasksServer(blocker), HANDLERS);
  const task = await client.startToolTask('block', {});
  await within(blocker.started, 5_000, 'tool started');
  await within(task.cancel(), 5_000, 'cancel');
  await expect(task.result()).rejects.toBeInstanceOf(TaskCancelledError);
  await within(blocker.aborted, 5_000, 'handler aborted');
  expect(task.status).toBe('cancelled');
  expect(requestsSent(wire).filter((r) => r.method === 'tasks/cancel')).toHaveLength(1);
  expect(await client.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
  await task.cancel(); // after the end: nothing more is sent
  expect(requestsSent(wire).filter((r) => r.method === 'tasks/cancel')).toHaveLength(1);
});

test("the caller's signal cancels the task on the wire and rejects with RequestAbortedError", async () => {
  const blocker = gate();
  const { client, wire } = await connect(tasksServer(blocker), HANDLERS);
  const controller = new AbortController();
  const task = await client.startToolTask('block', {}, { signal: controller.signal });
  await within(blocker.started, 5_000, 'tool started');
  controller.abort();
  await expect(task.result()).rejects.toBeInstanceOf(RequestAbortedError);
  await within(blocker.aborted, 5_000, 'handler aborted');
  expect(requestsSent(wire).filter((r) => r.method === 'tasks/cancel')).toHaveLength(1);
});

test('a task that failed with a JSON-RPC error rejects with that McpError', async () => {
  const { client } = await connect(tasksServer(), HANDLERS);
  const task = await client.startToolTask('broken', {});
  const error = await task.result().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: 'bad job' });
  expect(task.status).toBe('failed');
});

test('a plain callTool of a required tool runs it as a task (learnt from -32021 once)', async () => {
  const { client, wire } = await connect(tasksServer(), HANDLERS);
  expect(text(await within(client.callTool('must', {}), 5_000, 'first call'))).toBe('must done');
  expect(text(await within(client.callTool('must', {}), 5_000, 'second call'))).toBe('must done');
  const calls = requestsSent(wire).filter((r) => r.method === 'tools/call');
  const declaring = (r: (typeof calls)[number]): boolean =>
    JSON.stringify(r.params._meta ?? {}).includes(EXT);
  // First: a plain call (refused with -32021), then as a task; second: straight as a task.
  expect(calls.map(declaring)).toEqual([false, true, true]);
  // A tool that answers directly stays a plain call: no extension, no task.
  expect(text(await client.callTool('quick', {}))).toBe('quick done');
  expect(
    declaring(
      requestsSent(wire)
        .filter((r) => r.method === 'tools/call')
        .at(-1)!,
    ),
  ).toBe(false);
});

test("callTool's signal cancels a task it started for a required tool", async () => {
  const blocker = gate();
  const { client, wire } = await connect(tasksServer(blocker), HANDLERS);
  const controller = new AbortController();
  const call = client.callTool('block', {}, { signal: controller.signal });
  await within(blocker.started, 5_000, 'tool started');
  controller.abort();
  await expect(call).rejects.toBeInstanceOf(RequestAbortedError);
  await within(blocker.aborted, 5_000, 'handler aborted');
  expect(requestsSent(wire).filter((r) => r.method === 'tasks/cancel')).toHaveLength(1);
});

test('closing the client mid-poll ends the loop: ConnectionClosedError, nothing left open', async () => {
  const blocker = gate();
  const { client, wire } = await connect(tasksServer(blocker), HANDLERS);
  const task = await client.startToolTask('block', {});
  await within(blocker.started, 5_000, 'tool started');
  const statuses = task.statuses();
  await statuses.next();
  await client.close();
  await expect(task.result()).rejects.toBeInstanceOf(ConnectionClosedError);
  expect(await within(statuses.next(), 1_000, 'statuses end')).toEqual({ value: undefined, done: true });
  // Close is no cancel: the task outlives the client.
  expect(requestsSent(wire).filter((r) => r.method === 'tasks/cancel')).toHaveLength(0);
  blocker.release();
});

test('listTasks has no 2026-07-28 form; a server without the extension refuses locally', async () => {
  const { client } = await connect(tasksServer(), HANDLERS);
  await expect(client.listTasks()).rejects.toBeInstanceOf(RemovedInModernEraError);
  const plain = new McpServer({ name: 'plain', version: '1' });
  track(() => plain.close());
  plain.tool('echo', { description: 'e' }, () => 'e');
  const other = await connect(plain, HANDLERS);
  await expect(other.client.startToolTask('echo', {})).rejects.toBeInstanceOf(TasksNotSupportedError);
  expect(requestsSent(other.wire).filter((r) => r.method === 'tools/call')).toHaveLength(0);
});

test('resumeTask / taskResult follow a task by id from another client', async () => {
  const server = tasksServer();
  const first = await connect(server, HANDLERS);
  const task = await first.client.startToolTask('quick', {});
  await task.result();
  const second = await connect(server, HANDLERS);
  expect(text(await second.client.taskResult(task.taskId))).toBe('quick done');
});

export type { McpClient };
