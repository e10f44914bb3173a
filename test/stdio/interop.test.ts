/**
 * Wire compatibility with the official TypeScript SDK over real stdio, both directions.
 */
import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as OfficialStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, vi, expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { assertBuilt, EXAMPLE_SERVER, fixture, CHILD_TEST_TIMEOUT_MS, WAIT_MS } from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
beforeAll(assertBuilt);

test('the official SDK client uses the example server over stdio', async () => {
  const transport = new OfficialStdioClientTransport({
    command: process.execPath,
    args: [EXAMPLE_SERVER],
    stderr: 'ignore',
  });
  const client = new OfficialClient({ name: 'official-client', version: '1.0.0' });
  await within(client.connect(transport), WAIT_MS, 'connect');
  const tools = await within(client.listTools(), WAIT_MS, 'tools/list');
  expect(tools.tools.map((tool) => tool.name)).toEqual(['echo', 'slow']);
  const result = await within(
    client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    WAIT_MS,
    'call',
  );
  expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
  await within(client.close(), WAIT_MS, 'close');
});

test('the stdio client transport talks to an official SDK server', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture('official-sdk-server.js')],
    stderr: 'ignore',
    // The official server ends on stdin EOF; a short grace keeps the test quick if it did not.
    closeGraceMs: 1_000,
  });
  const client = new Client({ name: 'keel', version: '1.0.0' });
  await within(client.connect(transport), WAIT_MS, 'connect');
  expect(client.serverInfo?.name).toBe('official');
  const result = await within(
    client.request('tools/call', { name: 'echo', arguments: {} }),
    WAIT_MS,
    'tools/call',
  );
  expect(result.content).toEqual([{ type: 'text', text: 'from the official sdk' }]);
  await within(client.close(), WAIT_MS, 'close');
  console.error(
    `official server after close: exit code ${String(transport.exitCode)}, signal ${String(transport.signalCode)}`,
  );
});
