/**
 * Issue 25: the 2026-07-28 tasks extension (SEP-2663) on the wire: negotiation per request, the
 * flat CreateTaskResult, DetailedTask by status, the empty acks, the gating and removed methods.
 */
import { afterEach, expect, test } from 'vitest';
import { ErrorCode, McpError } from 'keel-mcp/core';
import { toolError, type McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { callTask, connectRaw, EXT, newServer, tasks, terminal, waitForTask, type Raw } from './support.js';

useProcessGuard();

let server: McpServer;
let raw: Raw;

function setup(): void {
  server = newServer();
  server.tool('plain', { description: 'never a task' }, () => 'plain');
  server.tool('maybe', { description: 'optional', execution: { taskSupport: 'optional' } }, () => 'done');
  server.tool('must', { description: 'required', execution: { taskSupport: 'required' } }, () =>
    toolError('tool says no'),
  );
  server.tool('broken', { description: 'protocol error', execution: { taskSupport: 'required' } }, () => {
    throw new McpError(ErrorCode.InvalidParams, 'bad job', { why: 'test' });
  });
  server.tool(
    'ask',
    { description: 'asks twice', execution: { taskSupport: 'required' } },
    async (_a, ctx) => {
      const schema = { type: 'object', properties: { name: { type: 'string' } } } as const;
      const [a, b] = await Promise.all([
        ctx.elicit({ message: 'A?', schema }, { inputKey: 'a' }),
        ctx.elicit({ message: 'B?', schema }, { inputKey: 'b' }),
      ]);
      return `${String(a.content?.name)} ${String(b.content?.name)}`;
    },
  );
  raw = connectRaw(server);
}

afterEach(async () => {
  await raw.close();
  await server.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

test('a declaring call of an optional tool is a flat CreateTaskResult; tasks/get shows the result', async () => {
  setup();
  const created = await callTask(raw, 'maybe');
  expect(created).toMatchObject({ resultType: 'task' });
  // The answer shows the status at the time: a tool this quick may be done already.
  expect(['working', 'completed']).toContain(created.status);
  expect(created.taskId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
  expect(created.createdAt).toMatch(ISO);
  expect(created.lastUpdatedAt).toMatch(ISO);
  expect(Number.isInteger(created.ttlMs) && (created.ttlMs as number) > 0).toBe(true);
  expect(Number.isInteger(created.pollIntervalMs)).toBe(true);
  for (const key of [
    'task',
    'result',
    'error',
    'inputRequests',
    'requestState',
    'ttl',
    'pollInterval',
    'cacheScope',
  ])
    expect(created).not.toHaveProperty(key);
  const done = await waitForTask(raw, created.taskId as string, terminal);
  expect(done).toMatchObject({
    resultType: 'complete',
    taskId: created.taskId,
    status: 'completed',
    result: { content: [{ type: 'text', text: 'done' }] },
  });
  expect(done).not.toHaveProperty('error');
});

test('without the extension: optional runs directly, required is -32021 with requiredCapabilities', async () => {
  setup();
  const direct = await raw.modern('tools/call', { name: 'maybe', arguments: {} });
  expect(direct).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'done' }] });
  await expect(raw.modern('tools/call', { name: 'must', arguments: {} })).rejects.toMatchObject({
    code: ErrorCode.MissingRequiredClientCapability,
    data: { requiredCapabilities: { extensions: { [EXT]: {} } } },
  });
});

test('a forbidden tool with the extension declared, and a legacy params.task, run directly', async () => {
  setup();
  const result = await raw.modern(
    'tools/call',
    { name: 'plain', arguments: {}, task: { ttl: 60_000 } },
    { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } },
  );
  expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'plain' }] });
  expect(result).not.toHaveProperty('taskId');
});

test('isError results are completed; a thrown McpError is failed with error and no result', async () => {
  setup();
  const must = await callTask(raw, 'must');
  const completed = await waitForTask(raw, must.taskId as string, terminal);
  expect(completed).toMatchObject({ status: 'completed', result: { isError: true } });
  const broken = await callTask(raw, 'broken');
  const failed = await waitForTask(raw, broken.taskId as string, terminal);
  expect(failed).toMatchObject({
    status: 'failed',
    error: { code: ErrorCode.InvalidParams, message: 'bad job', data: { why: 'test' } },
    statusMessage: 'bad job',
  });
  expect(failed).not.toHaveProperty('result');
});

test('input_required shows every open question; tasks/update answers one key at a time', async () => {
  setup();
  const created = await callTask(raw, 'ask');
  const id = created.taskId as string;
  const asking = await waitForTask(
    raw,
    id,
    (task) => task.status === 'input_required' && Object.keys(task.inputRequests as object).length === 2,
  );
  expect(asking.inputRequests).toMatchObject({
    a: { method: 'elicitation/create', params: { message: 'A?' } },
    b: { method: 'elicitation/create', params: { message: 'B?' } },
  });
  const ack = await tasks(raw, 'tasks/update', {
    taskId: id,
    inputResponses: { a: { action: 'accept', content: { name: 'x' } }, unknown: { ignored: true } },
  });
  expect(ack).toMatchObject({ resultType: 'complete' });
  for (const key of ['taskId', 'status', 'result', 'error', 'inputRequests'])
    expect(ack).not.toHaveProperty(key);
  // Applied before the ack: the very next read shows only the other key.
  const after = await tasks(raw, 'tasks/get', { taskId: id });
  expect(after).toMatchObject({ status: 'input_required' });
  expect(Object.keys(after.inputRequests as object)).toEqual(['b']);
  await tasks(raw, 'tasks/update', {
    taskId: id,
    inputResponses: { b: { action: 'accept', content: { name: 'y' } } },
  });
  const done = await waitForTask(raw, id, terminal);
  expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'x y' }] } });
});

test('tasks/* without the extension are -32021 before any lookup; tasks/result and tasks/list are -32601', async () => {
  setup();
  const created = await callTask(raw, 'maybe');
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
    await expect(
      raw.modern(method, { taskId: created.taskId as string, inputResponses: {} }),
    ).rejects.toMatchObject({ code: ErrorCode.MissingRequiredClientCapability });
  for (const method of ['tasks/result', 'tasks/list'])
    await expect(tasks(raw, method, { taskId: created.taskId })).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
});

test('tasks/cancel acks with an empty result, also for a terminal task', async () => {
  setup();
  const created = await callTask(raw, 'maybe');
  await waitForTask(raw, created.taskId as string, terminal);
  const ack = await tasks(raw, 'tasks/cancel', { taskId: created.taskId });
  expect(ack).toMatchObject({ resultType: 'complete' });
  expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType']);
  const still = await tasks(raw, 'tasks/get', { taskId: created.taskId });
  expect(still.status).toBe('completed');
});

test('server/discover advertises the extension and not the 2025-11-25 tasks capability', async () => {
  setup();
  const discovered = await raw.modern('server/discover');
  expect(discovered.capabilities).toMatchObject({ extensions: { [EXT]: {} } });
  expect(discovered.capabilities).not.toHaveProperty('tasks');
});

test('a server without task tools: no extension advertised, tasks/get is -32601', async () => {
  server = newServer();
  server.tool('plain', { description: 'never a task' }, () => 'plain');
  raw = connectRaw(server);
  const discovered = await raw.modern('server/discover');
  expect(discovered.capabilities).not.toHaveProperty('extensions');
  await expect(tasks(raw, 'tasks/get', { taskId: 'x' })).rejects.toMatchObject({
    code: ErrorCode.MethodNotFound,
  });
});

test('MRTR composition: a beforeTask question is an input_required round of the call; the retry becomes the task', async () => {
  setup();
  let runs = 0;
  server.tool(
    'named',
    { description: 'asks first', execution: { taskSupport: 'required' } },
    async (_a, ctx) => {
      runs += 1;
      const answer = await ctx.elicit(
        {
          message: 'Name?',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        { inputKey: 'name', beforeTask: true },
      );
      return `Hello, ${String(answer.content?.name)}!`;
    },
  );
  const round = await callTask(raw, 'named');
  expect(round).toMatchObject({
    resultType: 'input_required',
    inputRequests: { name: { method: 'elicitation/create' } },
  });
  expect(round).not.toHaveProperty('taskId');
  const created = await raw.modern(
    'tools/call',
    {
      name: 'named',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: round.requestState as string,
    },
    { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [EXT]: {} } } },
  );
  expect(created).toMatchObject({ resultType: 'task' });
  expect(created).not.toHaveProperty('requestState');
  expect(created).not.toHaveProperty('inputRequests');
  const done = await waitForTask(raw, created.taskId as string, terminal);
  expect(done).toMatchObject({
    status: 'completed',
    result: { content: [{ type: 'text', text: 'Hello, Alice!' }] },
  });
  expect(runs).toBe(2);
});
