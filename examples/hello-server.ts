import { McpServer } from 'keel-mcp/server';
import { serveStdio } from 'keel-mcp/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'hello', version: '1.0.0' });

server.tool(
  'greet',
  { description: 'Say hello to someone', input: z.object({ name: z.string() }) },
  ({ name }) => `Hello, ${name}!`,
);

await serveStdio(server); // serves stdin/stdout until the client goes away
