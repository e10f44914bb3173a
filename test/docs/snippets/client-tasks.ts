/**
 * docs/tasks.md snippets: the client side of tasks. Each `#region` is copied verbatim into the
 * block after its `<!-- snippet: name -->` marker (`node test/docs/readme-blocks.mjs --write`);
 * test/client-tasks/docs-example.test.ts runs the functions against the server of server-tasks.ts.
 */
import type { Transport } from 'keel-mcp/core';
import { McpClient, TaskCancelledError, type TaskInfo } from 'keel-mcp/client';

/** Stand-ins for the user code the snippets call. */
export const seen: string[] = [];
export const show = (task: TaskInfo): void => void seen.push(`${task.status} ${task.statusMessage ?? ''}`);
export const saved: string[] = [];
export const saveForLater = (taskId: string): void => void saved.push(taskId);

export async function renderAsTask(transport: Transport): Promise<{ client: McpClient; text: string }> {
  // #region tasks-client
  const client = await McpClient.connect(transport, {
    // A task's questions reach the usual handlers, in both eras.
    elicitation: { form: async () => ({ action: 'accept', content: { uhd: true } }) },
  });

  const task = await client.startToolTask(
    'render',
    { scene: 'intro' },
    { ttlMs: 60 * 60_000, onStatus: show }, // every status change: working, input_required, ...
  );
  saveForLater(task.taskId); // any connection can follow it later: client.resumeTask(id)
  const result = await task.result(); // polls at the server's interval until the task ends
  // #endregion
  const first = result.content[0];
  return { client, text: first?.type === 'text' ? first.text : '' };
}

export async function cancelRender(client: McpClient): Promise<string> {
  // #region tasks-client-cancel
  const controller = new AbortController();
  const task = await client.startToolTask('render', { scene: 'outro' }, { signal: controller.signal });
  await task.cancel(); // tasks/cancel; aborting controller.signal does the same
  try {
    await task.result();
  } catch (error) {
    if (error instanceof TaskCancelledError) return `cancelled task ${error.taskId}`;
    throw error;
  }
  // #endregion
  return 'not cancelled';
}
