import { expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { Server } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';

test('a low-level client and server shake hands and exchange a request', async () => {
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [] }));
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  expect(client.protocolVersion).toBe('2025-11-25');
  expect(await client.request('tools/list', {})).toEqual({ tools: [] });
  await expect(client.request('nope', {})).rejects.toMatchObject({ code: -32601 });
  await client.close();
  await session.closed;
  expect(server.sessions.size).toBe(0);
});
