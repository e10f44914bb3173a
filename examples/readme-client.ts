import { McpClient } from 'keel-mcp/client';
import { StdioClientTransport } from 'keel-mcp/stdio';

const transport = new StdioClientTransport({ command: 'node', args: ['dist/examples/readme-server.js'] });
const client = await McpClient.connect(transport, { info: { name: 'readme-client', version: '1.0.0' } });

try {
  for await (const tool of client.tools()) console.log(`tool ${tool.name}: ${tool.description}`);

  const result = await client.callTool<{ city: string; tempC: number }>(
    'forecast',
    { city: 'Oslo' },
    { timeoutMs: 10_000, onprogress: ({ progress, total }) => console.log(`progress ${progress}/${total}`) },
  );
  console.log(`${result.structuredContent?.city}: ${result.structuredContent?.tempC} °C`);

  const about = await client.readResource('weather://about');
  console.log(about.contents[0]);

  const prompt = await client.getPrompt('plan-trip', { city: 'Oslo' });
  console.log(prompt.messages[0]?.content);
} finally {
  await client.close(); // closes the child's stdin; SIGTERM/SIGKILL only if it will not exit
}
