import { expect, test } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server } from '../src/server/index.js';
import { createMemoryPair } from '../src/transports/memory/index.js';

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
