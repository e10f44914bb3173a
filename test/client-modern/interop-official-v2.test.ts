/**
 * Interop, issue 10: Keel's McpClient (default era 'auto') against a server written with the
 * official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0), which serves 2026-07-28: over
 * stdio (`serveStdio`, a child process) and over HTTP (`createMcpHandler` + `toNodeHandler`, on
 * 127.0.0.1). Every feature is called, its multi round-trip tools (elicitation, sampling, roots,
 * two rounds with requestState) included, through the same handlers the legacy era uses.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { McpClient, type McpClientOptions } from 'keel-mcp/client';
import type { Transport } from 'keel-mcp/core';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { CHILD_TEST_TIMEOUT_MS, WAIT_MS } from '../stdio/helpers.js';
import { buildOfficialV2 } from './fixtures/official-v2-server.mjs';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();

const SERVER = fileURLToPath(new URL('./fixtures/official-v2-server.mjs', import.meta.url));
const elicited: unknown[] = [];
const OPTIONS: McpClientOptions = {
  elicitation: {
    form: (params) => (elicited.push(params.message), { action: 'accept', content: { name: 'Ada' } }),
  },
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'keel-test-model' }),
  roots: [{ uri: 'file:///work', name: 'work' }],
};

const open: McpClient[] = [];
let http: Server | undefined;
afterEach(async () => {
  for (const client of open.splice(0)) await within(client.close(), WAIT_MS, 'client close');
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = undefined;
});

async function connect(transport: Transport): Promise<McpClient> {
  const client = new McpClient({ name: 'keel-interop-v2', version: '1.0.0' }, OPTIONS);
  open.push(client);
  await within(client.connect(transport), WAIT_MS, 'connect to the official v2 server');
  return client;
}

async function overHttp(): Promise<McpClient> {
  const handler = toNodeHandler(createMcpHandler(() => buildOfficialV2()));
  // The adapter's duck type of a request is narrower than node:http's under exactOptionalPropertyTypes.
  http = createServer((req, res) => void handler(req as Parameters<typeof handler>[0], res));
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return connect(new StreamableHttpClientTransport(url));
}

function overStdio(): Promise<McpClient> {
  return connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' }));
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe.each([
  ['stdio', overStdio],
  ['HTTP', overHttp],
])('McpClient ↔ official v2 server over %s, 2026-07-28', (_name, open) => {
  test('discover, tools (output schema, x-mcp-header), resources, templates, prompts, ping', async () => {
    const client = await open();
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toEqual({ name: 'official-v2', version: '2.4.0' });
    expect(client.instructions).toBe('Official v2 fixture');

    expect((await client.listAllTools()).map((t) => t.name)).toEqual([
      'add',
      'route',
      'ask_user',
      'ask_llm',
      'list_roots',
      'two_rounds',
    ]);
    expect((await client.callTool<{ sum: number }>('add', { a: 2, b: 40 })).structuredContent).toEqual({
      sum: 42,
    });
    expect(text(await client.callTool('route', { region: 'Zürich' }))).toBe('routed to Zürich');

    expect((await client.listAllResources()).map((r) => r.uri)).toEqual(['test://hello']);
    expect((await client.readResource('test://hello')).contents[0]).toMatchObject({ text: 'Hello from v2' });
    expect((await client.listAllResourceTemplates())[0]?.uriTemplate).toBe('test://items/{id}');
    expect((await client.readResource('test://items/7')).contents[0]).toMatchObject({ text: '{"id":"7"}' });
    expect((await client.listAllPrompts()).map((p) => p.name)).toEqual(['greet']);
    expect((await client.getPrompt('greet', { name: 'Ada' })).messages[0]).toMatchObject({
      content: { type: 'text', text: 'Hello Ada' },
    });
    await client.ping();
  });

  test('multi round-trip tools through the legacy handlers: elicitation, sampling, roots, two rounds', async () => {
    elicited.length = 0;
    const client = await open();
    expect(JSON.parse(text(await client.callTool('ask_user')))).toEqual({
      action: 'accept',
      content: { name: 'Ada' },
    });
    expect(JSON.parse(text(await client.callTool('ask_llm')))).toEqual({
      model: 'keel-test-model',
      content: { type: 'text', text: 'Paris' },
    });
    expect(JSON.parse(text(await client.callTool('list_roots')))).toEqual([
      { uri: 'file:///work', name: 'work' },
    ]);
    expect(JSON.parse(text(await client.callTool('two_rounds')))).toEqual({
      state: 'round-2',
      second: 'elicit',
    });
    expect(elicited).toEqual(['Your name?', 'First?', 'Second?']);
  });
});
