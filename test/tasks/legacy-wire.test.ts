/**
 * Issue 25: tasks in the 2025-11-25 format (SEP-1686) on the wire, over memory: the capability,
 * the nested CreateTaskResult, flat tasks, tasks/result with input on the way, cancel, list,
 * ownership and every refusal.
 */
import { afterEach, expect, test } from 'vitest';
import { ErrorCode, McpError, type JsonObject } from 'keel-mcp/core';
import { toolError, type McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connectRaw, newServer, terminal } from './support.js';
import { connectLegacy, RELATED, waitLegacy, type LegacyRaw } from './legacy-support.js';

useProcessGuard();

let server: McpServer;
const open: LegacyRaw[] = [];
let auth: JsonObject | undefined;
let release: (() => void) | undefined;
let finallyRuns = 0;

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } } } as const;

function setup(): McpServer {
  server = newServer({ tasks: { defaultTtlMs: 60_000, maxTtlMs: 120_000, pollIntervalMs: 250 } });
  server.tool('plain', { description: 'never a task' }, () => 'plain');
  server.tool('maybe', { description: 'optional', execution: { taskSupport: 'optional' } }, () => 'done');
  server.tool('must', { description: 'required', execution: { taskSupport: 'required' } }, () =>
    toolError('tool says no'),
  );
  server.tool('broken', { description: 'protocol error', execution: { taskSupport: 'required' } }, () => {
    throw new McpError(ErrorCode.InvalidParams, 'bad job', { why: 'test' });
  });
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
  server.tool(
    'ask',
    { description: 'asks twice', execution: { taskSupport: 'required' } },
    async (_a, ctx) => {
      const a = await ctx.elicit({ message: 'A?', schema: NAME_SCHEMA }, { inputKey: 'a' });
      const b = await ctx.elicit({ message: 'B?', schema: NAME_SCHEMA }, { inputKey: 'b' });
      return `${String(a.content?.name)} ${String(b.content?.name)}`;
    },
  );
  return server;
}

async function connect(): Promise<LegacyRaw> {
  const raw = await connectLegacy(server, () => auth);
  open.push(raw);
  return raw;
}

afterEach(async () => {
  release?.();
  release = undefined;
  auth = undefined;
  finallyRuns = 0;
  for (const raw of open.splice(0)) await raw.close();
  await server.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

function taskOf(created: JsonObject): JsonObject {
  return created.task as JsonObject;
}

test('initialize declares the 2025-11-25 tasks capability; server/discover does not; tools/list shows taskSupport', async () => {
  setup();
  const raw = await connect();
  expect((raw.initialized.capabilities as JsonObject).tasks).toEqual({
    list: {},
    cancel: {},
    requests: { tools: { call: {} } },
  });
  const { tools } = (await raw.request('tools/list')) as { tools: JsonObject[] };
  expect(tools.find((t) => t.name === 'maybe')?.execution).toEqual({ taskSupport: 'optional' });
  expect(tools.find((t) => t.name === 'plain')?.execution).toBeUndefined();
  const modern = connectRaw(server);
  try {
    const discovered = await modern.modern('server/discover');
    expect(discovered.capabilities).not.toHaveProperty('tasks');
    expect(discovered.capabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
  } finally {
    await modern.close();
  }
});

test('a server without task tools declares no tasks capability and ignores params.task', async () => {
  server = newServer();
  server.tool('plain', { description: 'never a task' }, () => 'plain');
  const raw = await connect();
  expect(raw.initialized.capabilities).not.toHaveProperty('tasks');
  const result = await raw.request('tools/call', { name: 'plain', task: { ttl: 1000 } });
  expect(result.content).toEqual([{ type: 'text', text: 'plain' }]);
});

test('tools/call with params.task answers a nested CreateTaskResult; the record exists at once', async () => {
  setup();
  const raw = await connect();
  const created = await raw.request('tools/call', { name: 'gate', task: { ttl: 60_000 } });
  expect(Object.keys(created)).toEqual(['task']);
  const task = taskOf(created);
  expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 250 });
  expect(task.createdAt).toMatch(ISO);
  expect(task.lastUpdatedAt).toMatch(ISO);
  for (const key of ['ttlMs', 'pollIntervalMs', 'resultType', 'result']) expect(task).not.toHaveProperty(key);
  const got = await raw.request('tasks/get', { taskId: task.taskId });
  expect(got).toEqual(task);
  release?.();
  const result = await raw.request('tasks/result', { taskId: task.taskId });
  expect(result).toEqual({
    content: [{ type: 'text', text: 'released' }],
    _meta: { [RELATED]: { taskId: task.taskId } },
  });
  expect(await raw.request('tasks/get', { taskId: task.taskId })).toMatchObject({ status: 'completed' });
});

test('task.ttl is clamped to tasks.maxTtlMs; absent ttl gets the default', async () => {
  setup();
  const raw = await connect();
  const long = taskOf(await raw.request('tools/call', { name: 'maybe', task: { ttl: 10_000_000 } }));
  expect(long.ttl).toBe(120_000);
  const none = taskOf(await raw.request('tools/call', { name: 'maybe', task: {} }));
  expect(none.ttl).toBe(server.taskManager.limits.defaultTtlMs);
});

test('an optional tool without params.task runs directly', async () => {
  setup();
  const raw = await connect();
  expect(await raw.request('tools/call', { name: 'maybe' })).toEqual({
    content: [{ type: 'text', text: 'done' }],
  });
});

test('isError: true ends the task failed (2025-11-25), tasks/result still returns the CallToolResult', async () => {
  setup();
  const raw = await connect();
  const { taskId } = taskOf(await raw.request('tools/call', { name: 'must', task: {} }));
  const result = await raw.request('tasks/result', { taskId });
  expect(result).toEqual({
    content: [{ type: 'text', text: 'tool says no' }],
    isError: true,
    _meta: { [RELATED]: { taskId } },
  });
  const task = await raw.request('tasks/get', { taskId });
  expect(task.status).toBe('failed');
  expect(task.statusMessage).toMatch(/isError/);
});

test('a JSON-RPC error of the tool comes back from tasks/result as that error', async () => {
  setup();
  const raw = await connect();
  const { taskId } = taskOf(await raw.request('tools/call', { name: 'broken', task: {} }));
  await expect(raw.request('tasks/result', { taskId })).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
    message: expect.stringContaining('bad job'),
    data: { why: 'test' },
  });
  expect(await raw.request('tasks/get', { taskId })).toMatchObject({ status: 'failed' });
});

test('input on the way: tasks/result asks each open question as a nested request with the related-task meta', async () => {
  setup();
  const raw = await connect();
  const asked: JsonObject[] = [];
  raw.client.setRequestHandler('elicitation/create', (params) => {
    asked.push(params);
    return { action: 'accept', content: { name: asked.length === 1 ? 'Ada' : 'Lovelace' } };
  });
  const { taskId } = taskOf(await raw.request('tools/call', { name: 'ask', task: {} }));
  await waitLegacy(raw, taskId as string, (task) => task.status === 'input_required');
  const result = await raw.request('tasks/result', { taskId });
  expect(result.content).toEqual([{ type: 'text', text: 'Ada Lovelace' }]);
  expect(asked.map((p) => p.message)).toEqual(['A?', 'B?']);
  for (const params of asked) expect(params._meta).toEqual({ [RELATED]: { taskId } });
  expect(await raw.request('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
});

test('two concurrent tasks/result: each question is answered once', async () => {
  setup();
  const raw = await connect();
  const answered: string[] = [];
  raw.client.setRequestHandler('elicitation/create', (params) => {
    answered.push(String(params.message));
    return { action: 'accept', content: { name: 'x' } };
  });
  const { taskId } = taskOf(await raw.request('tools/call', { name: 'ask', task: {} }));
  const [one, two] = await Promise.all([
    raw.request('tasks/result', { taskId }),
    raw.request('tasks/result', { taskId }),
  ]);
  expect(one.content).toEqual([{ type: 'text', text: 'x x' }]);
  expect(two).toEqual(one);
  // Each request may ask a question the other also asked; the task takes the first answer only.
  expect(answered.filter((m) => m === 'A?').length).toBeLessThanOrEqual(2);
  expect(answered.length).toBeLessThanOrEqual(4);
});

test('tasks/cancel sets cancelled before answering, aborts the handler (its finally runs); a terminal task is -32602', async () => {
  setup();
  const raw = await connect();
  const { taskId } = taskOf(await raw.request('tools/call', { name: 'gate', task: {} }));
  const cancelled = await raw.request('tasks/cancel', { taskId });
  expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
  expect(cancelled.createdAt).toMatch(ISO);
  expect(finallyRuns).toBe(1);
  expect(await raw.request('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
  await expect(raw.request('tasks/cancel', { taskId })).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
    message: "Cannot cancel task: already in terminal status 'cancelled'",
  });
  await expect(raw.request('tasks/result', { taskId })).rejects.toMatchObject({
    code: ErrorCode.InternalError,
  });
  const done = taskOf(await raw.request('tools/call', { name: 'maybe', task: {} }));
  await waitLegacy(raw, done.taskId as string, terminal);
  await expect(raw.request('tasks/cancel', { taskId: done.taskId })).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
    message: "Cannot cancel task: already in terminal status 'completed'",
  });
});

test('tasks/list: the session sees its own tasks; pages by cursor; a bad cursor is -32602', async () => {
  setup();
  const raw = await connect();
  const other = await connect();
  const mine = taskOf(await raw.request('tools/call', { name: 'maybe', task: {} }));
  const theirs = taskOf(await other.request('tools/call', { name: 'maybe', task: {} }));
  const listed = (await raw.request('tasks/list')).tasks as JsonObject[];
  expect(listed.map((t) => t.taskId)).toEqual([mine.taskId]);
  expect(listed[0]).toHaveProperty('ttl');
  // Without authentication the id is the capability: another session may read it.
  expect(await raw.request('tasks/get', { taskId: theirs.taskId })).toMatchObject({ taskId: theirs.taskId });
  await expect(raw.request('tasks/list', { cursor: 'nonsense' })).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
  });
  await expect(raw.request('tasks/list', { cursor: 7 })).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
  });
  for (let i = 0; i < 55; i += 1) await raw.request('tools/call', { name: 'maybe', task: {} });
  const first = await raw.request('tasks/list');
  expect((first.tasks as JsonObject[]).length).toBe(50);
  expect(typeof first.nextCursor).toBe('string');
  const second = await raw.request('tasks/list', { cursor: first.nextCursor });
  expect((second.tasks as JsonObject[]).length).toBe(6);
  expect(second).not.toHaveProperty('nextCursor');
});

test('with authentication a second principal gets -32602 "not found" everywhere and lists nothing', async () => {
  setup();
  const raw = await connect();
  auth = { subject: 'alice' };
  const { taskId } = taskOf(await raw.request('tools/call', { name: 'gate', task: {} }));
  auth = { subject: 'bob' };
  for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'])
    await expect(raw.request(method, { taskId })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('Task not found'),
    });
  expect((await raw.request('tasks/list')).tasks).toEqual([]);
  // Unauthenticated callers do not reach a principal's task either.
  auth = undefined;
  await expect(raw.request('tasks/get', { taskId })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  auth = { subject: 'alice' };
  expect((await raw.request('tasks/list')).tasks).toMatchObject([{ taskId, status: 'working' }]);
});

test('bad input: malformed task params, unknown id, forbidden as task, required without task, tasks/update', async () => {
  setup();
  const raw = await connect();
  for (const task of [5, 'x', null, [], { ttl: -1 }, { ttl: 'soon' }, { ttl: null }])
    await expect(raw.request('tools/call', { name: 'maybe', task })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
    await expect(raw.request(method, { taskId: 'no-such-task' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('Task not found'),
    });
    await expect(raw.request(method, {})).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  }
  await expect(raw.request('tools/call', { name: 'plain', task: {} })).rejects.toMatchObject({
    code: ErrorCode.MethodNotFound,
    message: expect.stringContaining('forbidden'),
  });
  await expect(raw.request('tools/call', { name: 'must' })).rejects.toMatchObject({
    code: ErrorCode.MethodNotFound,
    message: expect.stringContaining('params.task'),
  });
  await expect(raw.request('tasks/update', { taskId: 'x', inputResponses: {} })).rejects.toMatchObject({
    code: ErrorCode.MethodNotFound,
  });
});

test('a 2026-07-28 request ignores params.task and keeps its own task shape', async () => {
  setup();
  const modern = connectRaw(server);
  try {
    expect(await modern.modern('tools/call', { name: 'plain', arguments: {}, task: {} })).toMatchObject({
      content: [{ type: 'text', text: 'plain' }],
    });
  } finally {
    await modern.close();
  }
});
