// The benchmark's two tools on the official TypeScript SDK 1.x (`@modelcontextprotocol/sdk`),
// written the way its README and examples do it (McpServer + registerTool + zod).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function createSdk1Server() {
  const server = new McpServer({ name: 'bench-sdk1', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its input text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'wait_sampling',
    { description: 'Asks the client to sample a prompt', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const sampled = await server.server.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 64 },
        { relatedRequestId: extra.requestId, signal: extra.signal },
      );
      const text = Array.isArray(sampled.content) ? sampled.content[0]?.text : sampled.content.text;
      return { content: [{ type: 'text', text }] };
    },
  );
  return server;
}
