import { serveHttp } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import { z } from 'zod';

const server = new McpServer({ name: 'hello', version: '1.0.0' });

server.tool(
  'greet',
  { description: 'Say hello to someone', input: z.object({ name: z.string() }) },
  ({ name }) => `Hello, ${name}!`,
);

const serving = await serveHttp(server, { port: Number(process.env.PORT ?? 3000) });
console.log(`MCP endpoint: ${serving.url}`); // http://127.0.0.1:3000/mcp
process.once('SIGINT', () => void serving.close()); // Ctrl+C: ends sessions, then exits
