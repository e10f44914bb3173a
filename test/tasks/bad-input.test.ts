/**
 * Issue 25: bad input to tasks gets a clear error, never a crash or a hang: unknown ids, another
 * owner's task, malformed params, bounds (`-32010` naming the limit), an oversized result, and an
 * answer of the wrong shape.
 */
import { afterEach, expect, test } from 'vitest';
import { ErrorCode } from 'keel-mcp/core';
import type { McpServer, McpServerOptions } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { callTask, connectRaw, newServer, tasks, terminal, waitForTask, type Raw } from './support.js';

useProcessGuard();

let server: McpServer;
let raw: Raw;
let auth: unknown;

function setup(options: McpServerOptions = {}): void {
  server = newServer(options);
  server.tool('quick', { description: 'quick', execution: { taskSupport: 'required' } }, () => 'ok');
  server.tool('big', { description: 'big result', execution: { taskSupport: 'required' } }, () =>
    'x'.repeat(2_000),
  );
  server.tool(
    'park',
    { description: 'waits for an answer', execution: { taskSupport: 'required' } },
    async (_a, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Sure?', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
        { inputKey: 'ok' },
      );
      return answer.action;
    },
  );
  raw = connectRaw(server);
  auth = undefined;
  raw.serverTransport.messageInfo = () => ({ authInfo: auth });
}

afterEach(async () => {
  await raw.close();
  await server.close();
});

test('an unknown task id is -32602 on tasks/get, tasks/update and tasks/cancel', async () => {
  setup();
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
    await expect(tasks(raw, method, { taskId: 'no-such-task', inputResponses: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('Task not found'),
    });
});

test('malformed params are -32602: a missing or non-string taskId, inputResponses not an object', async () => {
  setup();
  const created = await callTask(raw, 'park');
  for (const params of [{}, { taskId: 7 }, { taskId: '' }])
    await expect(tasks(raw, 'tasks/get', params)).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  await expect(tasks(raw, 'tasks/update', { taskId: created.taskId })).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
  });
  await expect(
    tasks(raw, 'tasks/update', { taskId: created.taskId, inputResponses: [] }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
});

test("another principal's task is not found, and cannot be cancelled", async () => {
  setup();
  auth = { subject: 'alice', scopes: [] };
  const created = await callTask(raw, 'park');
  auth = { subject: 'mallory', scopes: [] };
  for (const method of ['tasks/get', 'tasks/cancel'])
    await expect(tasks(raw, method, { taskId: created.taskId })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  auth = { subject: 'alice', scopes: [] };
  const mine = await tasks(raw, 'tasks/get', { taskId: created.taskId });
  expect(mine.status).not.toBe('cancelled');
});

test('past maxPerOwner the call is -32010 naming the limit', async () => {
  setup({ tasks: { maxPerOwner: 1 } });
  await callTask(raw, 'park');
  await expect(callTask(raw, 'park')).rejects.toMatchObject({
    code: ErrorCode.ServerBusy,
    message: expect.stringContaining('tasks.maxPerOwner'),
  });
});

test('past maxTotal the call is -32010 naming the limit', async () => {
  setup({ tasks: { maxTotal: 1, maxPerOwner: 5 } });
  await callTask(raw, 'park');
  await expect(callTask(raw, 'park')).rejects.toMatchObject({
    code: ErrorCode.ServerBusy,
    message: expect.stringContaining('tasks.maxTotal'),
  });
});

test('a result over maxResultBytes fails the task with -32603 naming the cap', async () => {
  setup({ tasks: { maxResultBytes: 1_000 } });
  const created = await callTask(raw, 'big');
  const done = await waitForTask(raw, created.taskId as string, terminal);
  expect(done).toMatchObject({
    status: 'failed',
    error: { code: ErrorCode.InternalError, message: expect.stringContaining('tasks.maxResultBytes = 1000') },
  });
  expect(done).not.toHaveProperty('result');
});

test('an answer of the wrong shape for an open key is -32602 and the question stays open', async () => {
  setup();
  const created = await callTask(raw, 'park');
  const id = created.taskId as string;
  await waitForTask(raw, id, (task) => task.status === 'input_required');
  await expect(
    tasks(raw, 'tasks/update', { taskId: id, inputResponses: { ok: { action: 'maybe' } } }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  const still = await tasks(raw, 'tasks/get', { taskId: id });
  expect(still).toMatchObject({
    status: 'input_required',
    inputRequests: { ok: { method: 'elicitation/create' } },
  });
});

test('bad task options fail at construction, naming the option', () => {
  expect(() => newServer({ tasks: { leaseMs: 0 } })).toThrow(/tasks\.leaseMs/);
  expect(() => newServer({ tasks: { pollIntervalMs: 1.5 } })).toThrow(/tasks\.pollIntervalMs/);
  expect(() => newServer({ tasks: { defaultTtlMs: 10, maxTtlMs: 5 } })).toThrow(/maxTtlMs/);
});
