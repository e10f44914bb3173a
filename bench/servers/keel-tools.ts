/**
 * The benchmark's two tools on Keel's high-level `McpServer`, written the way a user would.
 *
 * Input schemas are raw JSON Schema, which Keel takes as a first-class input (advertised as given,
 * every call's arguments validated against it). No schema library is loaded: zod alone costs
 * ~58 ms of start-up, and a Keel server does not need one. The official SDK servers use zod,
 * which is how those SDKs take tool schemas; `keel-zod-tools.ts` is the same server with zod, for
 * the like-for-like rows.
 */
import { McpServer } from 'keel-mcp/server';
import type { SchemaInput } from 'keel-mcp/server';

const echoInput = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
};
const samplingInput = {
  type: 'object',
  properties: { prompt: { type: 'string' } },
  required: ['prompt'],
};

/**
 * Registers `echo` and `wait_sampling` with the given input schemas (any schema Keel accepts).
 *
 * @example
 * registerBenchTools(new McpServer({ name: 'x', version: '1' }), z.object({ text: z.string() }), z.object({ prompt: z.string() }));
 */
export function registerBenchTools(server: McpServer, echo: SchemaInput, sampling: SchemaInput): McpServer {
  server.tool('echo', { description: 'Returns its input text', input: echo }, (args) =>
    String((args as { text: unknown }).text),
  );
  server.tool(
    'wait_sampling',
    { description: 'Asks the client to sample a prompt', input: sampling },
    async (args, ctx) => {
      const sampled = await ctx.createMessage({
        messages: [
          { role: 'user', content: { type: 'text', text: String((args as { prompt: unknown }).prompt) } },
        ],
        maxTokens: 64,
      });
      const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
      return content?.type === 'text' ? content.text : '';
    },
  );
  return server;
}

/**
 * @example
 * await serveStdio(createBenchServer());
 */
export function createBenchServer(): McpServer {
  return registerBenchTools(
    new McpServer({ name: 'bench-keel', version: '1.0.0' }),
    echoInput,
    samplingInput,
  );
}
