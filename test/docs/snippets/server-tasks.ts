/**
 * docs/tasks.md snippets: a tool that runs as a task. Each `#region` is copied verbatim into the
 * block after its `<!-- snippet: name -->` marker (`node test/docs/readme-blocks.mjs --write`);
 * test/tasks/docs-example.test.ts runs the function.
 */
import { z } from 'zod';
import { McpServer } from 'keel-mcp/server';

/** Stand-in for the user's slow work. */
export const renderVideo = async (scene: string, signal: AbortSignal): Promise<string> => {
  if (signal.aborted) throw signal.reason;
  return `https://cdn.example.com/${encodeURIComponent(scene)}.mp4`;
};

export function tasksServer(): McpServer {
  // #region tasks-server
  const server = new McpServer(
    { name: 'studio', version: '1.0.0' },
    { tasks: { defaultTtlMs: 60 * 60_000, maxPerOwner: 20 } },
  );

  server.tool(
    'render',
    {
      description: 'Render a scene to video (takes minutes)',
      input: z.object({ scene: z.string() }),
      execution: { taskSupport: 'optional' }, // a task when the client takes tasks
    },
    async ({ scene }, ctx) => {
      const answer = await ctx.elicit({
        message: `Render "${scene}" in 4K?`,
        schema: z.object({ uhd: z.boolean() }),
      }); // inside a task: the task is input_required until the client answers
      await ctx.progress(1, 2, answer.action === 'accept' && answer.content.uhd ? '4K' : 'HD');
      return renderVideo(scene, ctx.signal); // ctx.signal aborts on tasks/cancel and server close
    },
  );
  // #endregion
  return server;
}
