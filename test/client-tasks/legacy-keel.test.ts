/**
 * Issue 25, client and server together in the 2025-11-25 format: Keel's McpClient (era 'legacy')
 * against Keel's own McpServer. The two halves were built apart (the client against the official
 * SDK's server, the server against the official SDK's client); this file holds them to each
 * other: create, poll, a question on the way (asked through tasks/result, answered by the usual
 * elicitation handler), cancel, list, a plain callTool of a required tool, and an isError result.
 */
import { expect, test } from 'vitest';
import { McpClient, TaskCancelledError, type McpClientOptions } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { z } from 'zod';
import { useProcessGuard, within } from '../helpers/guard.js';
import { requestsSent, useModern } from '../client-modern/helpers.js';

useProcessGuard();
const { connect, track } = useModern();
const RELATED = 'io.modelcontextprotocol/related-task';

function legacyServer(release: Promise<void>, started: () => void): McpServer {
  const server = new McpServer({ name: 'legacy-tasks', version: '1' }, { tasks: { pollIntervalMs: 50 } });
  track(() => server.close());
  server.tool(
    'quick',
    { description: 'optional', execution: { taskSupport: 'optional' } },
    () => 'quick done',
  );
  server.tool('must', { description: 'required', execution: { taskSupport: 'required' } }, () => 'must done');
  server.tool('ask', { description: 'asks', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', schema: z.object({ name: z.string() }) });
    return `hello ${answer.action === 'accept' ? answer.content.name : 'nobody'}`;
  });
  server.tool('oops', { description: 'tool error', execution: { taskSupport: 'required' } }, () => ({
    content: [{ type: 'text', text: 'it broke' }],
    isError: true,
  }));
  server.tool('block', { description: 'waits', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    started();
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      void release.then(resolve);
    });
    return 'released';
  });
  return server;
}

const OPTIONS: McpClientOptions = {
  era: 'legacy',
  elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
};

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

test('issue 25: Keel client ↔ Keel server, 2025-11-25: create, poll, result; nested CreateTaskResult read', async () => {
  const { client, wire } = await connect(
    legacyServer(new Promise(() => {}), () => {}),
    OPTIONS,
  );
  const task = await client.startToolTask('quick', {}, { ttlMs: 60_000 });
  expect(text(await within(task.result(), 5_000, 'result'))).toBe('quick done');
  expect(task.status).toBe('completed');
  const call = requestsSent(wire).find((r) => r.method === 'tools/call');
  expect(call?.params.task).toEqual({ ttl: 60_000 });
  expect(await client.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' });
});

test('issue 25: a question on the way arrives through tasks/result (carrying the related-task _meta) and is answered', async () => {
  const asked: string[] = [];
  const { client, serverWire } = await connect(
    legacyServer(new Promise(() => {}), () => {}),
    {
      ...OPTIONS,
      elicitation: {
        form: (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    },
  );
  const task = await client.startToolTask('ask', {});
  expect(text(await within(task.result(), 5_000, 'ask result'))).toBe('hello Ada');
  expect(asked).toEqual(['Name?']);
  // The server's question carried the task it belongs to.
  const question = requestsSent(serverWire).find((r) => r.method === 'elicitation/create');
  expect(question?.params._meta).toMatchObject({ [RELATED]: { taskId: task.taskId } });
});

test('issue 25: cancel() ends the task cancelled on the server; listTasks shows it', async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const { client } = await connect(legacyServer(new Promise(() => {}), started), OPTIONS);
  const task = await client.startToolTask('block', {});
  await within(running, 5_000, 'tool started');
  await task.cancel();
  await expect(within(task.result(), 5_000, 'cancelled result')).rejects.toBeInstanceOf(TaskCancelledError);
  expect(await client.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
  const page = await client.listTasks();
  expect(page.tasks.map((t) => [t.taskId, t.status])).toContainEqual([task.taskId, 'cancelled']);
});

test('issue 25: a plain callTool of a required tool runs it as a task; an isError result still resolves', async () => {
  const { client, wire } = await connect(
    legacyServer(new Promise(() => {}), () => {}),
    OPTIONS,
  );
  await client.listTools();
  expect(text(await within(client.callTool('must', {}), 5_000, 'must'))).toBe('must done');
  const oops = await within(client.callTool('oops', {}), 5_000, 'oops');
  expect(oops).toMatchObject({ isError: true });
  expect(text(oops)).toBe('it broke');
  const calls = requestsSent(wire).filter((r) => r.method === 'tools/call');
  expect(calls.every((r) => r.params.task !== undefined)).toBe(true);
  expect(requestsSent(wire).map((r) => r.method)).toContain('tasks/result');
});

test('issue 25: a new McpClient reads a finished task of another connection by id (taskResult)', async () => {
  const server = legacyServer(new Promise(() => {}), () => {});
  const first = await connect(server, OPTIONS);
  const task = await first.client.startToolTask('quick', {});
  await within(task.result(), 5_000, 'first result');
  await first.client.close();
  const second = await connect(server, OPTIONS);
  expect(second.client).toBeInstanceOf(McpClient);
  expect(text(await within(second.client.taskResult(task.taskId), 5_000, 'second read'))).toBe('quick done');
});
