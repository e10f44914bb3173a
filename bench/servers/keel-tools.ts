/**
 * The benchmark's two tools on Keel's high-level `McpServer`, written the way a user would.
 */
import { z } from 'zod';
import { McpServer } from '../../src/server/index.js';

/**
 * @example
 * await serveStdio(createBenchServer());
 */
export function createBenchServer(): McpServer {
  const server = new McpServer({ name: 'bench-keel', version: '1.0.0' });
  server.tool(
    'echo',
    { description: 'Returns its input text', input: z.object({ text: z.string() }) },
    ({ text }) => text,
  );
  server.tool(
    'wait_sampling',
    { description: 'Asks the client to sample a prompt', input: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const sampled = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 64,
      });
      const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
      return content?.type === 'text' ? content.text : '';
    },
  );
  return server;
}
