/**
 * Issue 25: the client snippets of docs/tasks.md do what the guide says against the guide's own
 * server (2026-07-28 over the memory transport): the render task asks, the handler answers, the
 * result comes back, every status reaches onStatus; a cancelled task rejects with TaskCancelledError.
 */
import { afterEach, expect, test } from 'vitest';
import type { McpClient } from 'keel-mcp/client';
import { createMemoryPair } from 'keel-mcp/memory';
import type { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { cancelRender, renderAsTask, saved, seen } from '../docs/snippets/client-tasks.js';
import { tasksServer } from '../docs/snippets/server-tasks.js';

useProcessGuard();

let server: McpServer | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

test('docs/tasks.md client: start, watch, answer, result; then a cancel', async () => {
  server = tasksServer();
  const [clientSide, serverSide] = createMemoryPair();
  server.connect(serverSide);
  const rendered = await within(renderAsTask(clientSide), 10_000, 'render task');
  client = rendered.client;
  expect(client.era).toBe('modern');
  expect(rendered.text).toBe('https://cdn.example.com/intro.mp4');
  expect(saved).toHaveLength(1);
  expect(seen).toContain('input_required ');
  expect(seen.at(-1)).toBe('completed 4K');
  expect(await within(cancelRender(client), 10_000, 'cancel')).toMatch(/^cancelled task \S+$/);
});
