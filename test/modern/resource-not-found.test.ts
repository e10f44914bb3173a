/**
 * 2026-07-28 resources.mdx "Error Handling": a resource that does not exist is `-32602` (with
 * `data.uri`), whether no resource or template matches the URI or a template's handler says so
 * itself with `-32002`; the legacy era keeps `-32002` for both.
 */
import { afterEach, expect, test } from 'vitest';
import { ErrorCode, McpError, Connection } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { connectRaw, type Raw } from './harness.js';

let open: Raw | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function build(): McpServer {
  const server = new McpServer({ name: 'nf', version: '1' }, { onerror: undefined });
  server.resource('readme', 'file:///readme.md', {}, () => 'read me');
  server.resourceTemplate('user', 'users://{id}', {}, (uri, { id }) => {
    if (id !== 'ada')
      throw new McpError(ErrorCode.ResourceNotFound, `No user ${String(id)}`, { uri: uri.toString() });
    return 'Ada';
  });
  return server;
}

test.each([
  ['no resource or template matches', 'file:///nope.md'],
  ["the template's handler says not found", 'users://bob'],
])('modern: %s → -32602 with data.uri', async (_label, uri) => {
  open = connectRaw(build());
  const error = await open.modern('resources/read', { uri }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  expect(error).toMatchObject({ code: -32602, data: { uri } });
  expect(await open.modern('resources/read', { uri: 'users://ada' })).toMatchObject({
    contents: [{ text: 'Ada' }],
  });
});

test.each([
  ['no resource or template matches', 'file:///nope.md'],
  ["the template's handler says not found", 'users://bob'],
])('legacy: %s → -32002 as before', async (_label, uri) => {
  const [clientSide, serverSide] = createMemoryPair();
  const session = build().connect(serverSide);
  const client = new Connection(clientSide);
  void client.start();
  await client.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'legacy', version: '1' },
  });
  await client.notify('notifications/initialized');
  const error = await client.request('resources/read', { uri }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: -32002 });
  await client.close();
  await session.closed;
});
