// The benchmark's two tools on the official SDK v2 (`@modelcontextprotocol/server`), written the
// way its documentation does it (McpServer + registerTool + a Standard Schema, zod 4 here).
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

export function createSdk2Server() {
  const server = new McpServer({ name: 'bench-sdk2', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its input text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'wait_sampling',
    { description: 'Asks the client to sample a prompt', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const sampled = await ctx.mcpReq.requestSampling({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 64,
      });
      const text = Array.isArray(sampled.content) ? sampled.content[0]?.text : sampled.content.text;
      return { content: [{ type: 'text', text }] };
    },
  );
  return server;
}
