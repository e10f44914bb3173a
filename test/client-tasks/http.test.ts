/**
 * Issue 25, client over real HTTP (127.0.0.1), 2026-07-28: McpClient against Keel's HTTP server
 * runs a task with a question on the way and a cancel. The server rejects a `tasks/*` POST whose
 * `Mcp-Name` header does not carry the `taskId` (-32020): the client sends it on tasks/get,
 * tasks/update and tasks/cancel.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { McpClient, TaskCancelledError } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { z } from 'zod';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

let serving: HttpServing | undefined;
let client: McpClient | undefined;
let server: McpServer | undefined;
afterEach(async () => {
  await client?.close();
  await serving?.close({ deadlineMs: 2_000 });
  await server?.close();
  client = serving = server = undefined;
});

interface Sent {
  method: string | undefined;
  taskId: unknown;
  mcpName: string | null;
}

async function start(): Promise<{ client: McpClient; sent: Sent[] }> {
  server = new McpServer({ name: 'tasks-http', version: '1' }, { tasks: { pollIntervalMs: 50 } });
  server.tool('ask', { description: 'asks', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', schema: z.object({ name: z.string() }) });
    return `hello ${answer.action === 'accept' ? answer.content.name : '?'}`;
  });
  server.tool('hold', { description: 'waits', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'never';
  });
  serving = await serveHttp(server, { port: 0, host: '127.0.0.1', keepAliveMs: 0 });
  const sent: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const body =
      typeof init?.body === 'string'
        ? (JSON.parse(init.body) as { method?: string; params?: { taskId?: unknown } })
        : undefined;
    sent.push({
      method: body?.method,
      taskId: body?.params?.taskId,
      mcpName: new Headers(init?.headers).get('mcp-name'),
    });
    return fetch(input, init);
  };
  client = new McpClient(
    { name: 'tasks-http-client', version: '1' },
    { elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } },
  );
  await within(
    client.connect(new StreamableHttpClientTransport(serving.url, { fetch: recording })),
    10_000,
    'connect',
  );
  expect(client.era).toBe('modern');
  return { client, sent };
}

test('a task with a question on the way; every tasks/* POST names its task in Mcp-Name', async () => {
  const { client, sent } = await start();
  const task = await client.startToolTask('ask', {});
  const result = await within(task.result(), 10_000, 'ask result');
  expect((result.content[0] as { text: string }).text).toBe('hello Ada');
  const taskPosts = sent.filter((s) => s.method?.startsWith('tasks/'));
  expect(taskPosts.map((s) => s.method)).toEqual(expect.arrayContaining(['tasks/get', 'tasks/update']));
  for (const post of taskPosts) expect(post.mcpName).toBe(task.taskId);
});

test('cancel over HTTP: tasks/cancel carries Mcp-Name and the task ends cancelled', async () => {
  const { client, sent } = await start();
  const task = await client.startToolTask('hold', {});
  await within(task.cancel(), 10_000, 'cancel');
  await expect(task.result()).rejects.toBeInstanceOf(TaskCancelledError);
  expect(sent.find((s) => s.method === 'tasks/cancel')?.mcpName).toBe(task.taskId);
  expect((await client.getTask(task.taskId)).status).toBe('cancelled');
});
