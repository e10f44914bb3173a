/**
 * The benchmark's two tools on Keel's high-level `McpServer`, written the way a user would.
 *
 * Input schemas are raw JSON Schema, which Keel takes as a first-class input (advertised as given,
 * every call's arguments validated against it). No schema library is loaded: zod alone costs
 * ~58 ms of start-up, and a Keel server does not need one. The official SDK servers use zod,
 * which is how those SDKs take tool schemas.
 */
import { McpServer } from '../../src/server/index.js';

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
 * @example
 * await serveStdio(createBenchServer());
 */
export function createBenchServer(): McpServer {
  const server = new McpServer({ name: 'bench-keel', version: '1.0.0' });
  server.tool('echo', { description: 'Returns its input text', input: echoInput }, ({ text }) =>
    String(text),
  );
  server.tool(
    'wait_sampling',
    { description: 'Asks the client to sample a prompt', input: samplingInput },
    async ({ prompt }, ctx) => {
      const sampled = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: String(prompt) } }],
        maxTokens: 64,
      });
      const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
      return content?.type === 'text' ? content.text : '';
    },
  );
  return server;
}
