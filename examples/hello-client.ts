import { McpClient } from 'keel-mcp/client';
import { StdioClientTransport } from 'keel-mcp/stdio';

// Starts hello-server.js (in the current directory) as a child process; talks over its stdin/stdout.
const transport = new StdioClientTransport({ command: 'node', args: ['hello-server.js'] });
const client = await McpClient.connect(transport, { info: { name: 'hello-client', version: '1.0.0' } });

const result = await client.callTool('greet', { name: 'Ada' });
console.log(result.content[0]); // { type: 'text', text: 'Hello, Ada!' }

await client.close(); // the server sees EOF on stdin and exits
