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
      // `requestSampling` does not relate the request to the call by itself; without
      // `relatedRequestId` it would go to the standalone GET stream over HTTP.
      const sampled = await ctx.mcpReq.requestSampling(
        { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 64 },
        { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal },
      );
      const text = Array.isArray(sampled.content) ? sampled.content[0]?.text : sampled.content.text;
      return { content: [{ type: 'text', text }] };
    },
  );
  return server;
}
