/**
 * Issue 25: the server of docs/tasks.md does what the guide says: a declaring call becomes a task,
 * its question shows as `input_required`, the answer resumes it, the result is stored.
 */
import { afterEach, expect, test } from 'vitest';
import type { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { tasksServer } from '../docs/snippets/server-tasks.js';
import { callTask, connectRaw, tasks, terminal, waitForTask, type Raw } from './support.js';

useProcessGuard();

let server: McpServer;
let raw: Raw;
afterEach(async () => {
  await raw.close();
  await server.close();
});

test('docs/tasks.md: render runs as a task, asks, resumes on the answer and completes', async () => {
  server = tasksServer();
  raw = connectRaw(server);
  const created = await callTask(raw, 'render', { scene: 'intro' });
  expect(created.resultType).toBe('task');
  const id = created.taskId as string;
  const asking = await waitForTask(raw, id, (task) => task.status === 'input_required');
  expect(asking.inputRequests).toMatchObject({ 'elicit-1': { method: 'elicitation/create' } });
  await tasks(raw, 'tasks/update', {
    taskId: id,
    inputResponses: { 'elicit-1': { action: 'accept', content: { uhd: true } } },
  });
  const done = await waitForTask(raw, id, terminal);
  expect(done).toMatchObject({
    status: 'completed',
    statusMessage: '4K',
    result: { content: [{ type: 'text', text: 'https://cdn.example.com/intro.mp4' }] },
  });
});
