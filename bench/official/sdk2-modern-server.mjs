// The benchmark's two tools on the official SDK v2 for 2026-07-28 requests, written the way its
// documentation does multi round-trip tools: `wait_sampling` reads the sampled answer from
// `ctx.mcpReq.inputResponses` and, while there is none, returns `inputRequired(...)` asking for
// it. (No requestState: the documented pattern keeps none for one question, and the SDK does not
// sign one for you.) A fresh server per request: `createMcpHandler` calls the factory per request.
import { McpServer, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import * as z from 'zod';

export function createSdk2ModernServer() {
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
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'sample');
      if (answer.kind !== 'sampling') {
        return inputRequired({
          inputRequests: {
            sample: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
              maxTokens: 64,
            }),
          },
        });
      }
      const content = answer.result.content;
      const text = Array.isArray(content) ? content[0]?.text : content.text;
      return { content: [{ type: 'text', text }] };
    },
  );
  return server;
}
