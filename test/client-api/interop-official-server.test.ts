/**
 * Interop: Keel's McpClient drives a server written with the official SDK
 * (@modelcontextprotocol/sdk 1.x McpServer) over stdio, spawned by Keel's StdioClientTransport.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { McpClient, type McpClientOptions } from 'keel-mcp/client';
import { RequestAbortedError, RequestTimeoutError, type Progress } from 'keel-mcp/core';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const serverPath = fileURLToPath(new URL('./fixtures/official-server.mjs', import.meta.url));
const open: McpClient[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await within(client.close(), 10_000, 'client close');
});

async function spawnOfficial(
  options: McpClientOptions = {},
): Promise<{ client: McpClient; stderr: string[] }> {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverPath],
    stderr: 'pipe',
    onStderr: (text) => void stderr.push(text),
  });
  const client = new McpClient({ name: 'keel-interop', version: '1.0.0' }, options);
  open.push(client);
  await within(client.connect(transport), 10_000, 'connect to the official server');
  return { client, stderr };
}

describe('McpClient ↔ official SDK server over stdio', () => {
  test('handshake, tools (with output schema), resources, templates, prompts', async () => {
    const { client } = await spawnOfficial();
    expect(client.serverInfo).toEqual({ name: 'official-fixture', version: '1.0.0' });
    expect(client.instructions).toBe('Official SDK fixture');
    expect(client.protocolVersion).toBe('2025-11-25');

    const tools = await client.listAllTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['add', 'ask_llm', 'ask_user', 'ask_url', 'list_roots', 'progress', 'log']),
    );
    // The official SDK emits draft-07 schemas; they validate with the draft-07 engine.
    const add = await client.callTool<{ sum: number }>('add', { a: 2, b: 40 });
    expect(add.structuredContent).toEqual({ sum: 42 });
    expect(add.content).toEqual([{ type: 'text', text: '42' }]);
    const invalid = await client.callTool('add', { a: 'x' });
    expect(invalid.isError).toBe(true);

    expect((await client.listAllResources()).map((r) => r.uri)).toEqual(['test://hello']);
    expect((await client.readResource('test://hello')).contents[0]).toMatchObject({
      text: 'Hello from the official SDK',
    });
    expect((await client.listAllResourceTemplates())[0]?.uriTemplate).toBe('test://items/{id}');
    expect((await client.readResource('test://items/7')).contents[0]).toMatchObject({ text: '{"id":"7"}' });

    expect((await client.listAllPrompts()).map((p) => p.name)).toEqual(['greet']);
    const prompt = await client.getPrompt('greet', { name: 'Ada' });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
  });

  test('answers the server’s sampling, elicitation (form with defaults, URL) and roots requests', async () => {
    const { client } = await spawnOfficial({
      sampling: ({ messages }) => ({
        role: 'assistant',
        content: { type: 'text', text: `model says: ${(messages[0]?.content as { text: string }).text}` },
        model: 'fake-llm',
      }),
      elicitation: {
        form: () => ({ action: 'accept', content: { name: 'Ada' } }),
        url: ({ url }) => (url.startsWith('https://') ? { action: 'accept' } : { action: 'decline' }),
        applyDefaults: true,
      },
      roots: [{ uri: 'file:///srv/project', name: 'project' }],
    });
    const parse = (result: { content: unknown[] }): unknown =>
      JSON.parse((result.content[0] as { text: string }).text);

    expect(parse(await client.callTool('ask_llm', { prompt: 'hi' }))).toMatchObject({
      model: 'fake-llm',
      content: { type: 'text', text: 'model says: hi' },
    });
    // The official server validates the accepted content against its schema: defaults must be typed right.
    expect(parse(await client.callTool('ask_user'))).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 30, verified: true },
    });
    expect(parse(await client.callTool('ask_url'))).toEqual({ action: 'accept' });
    expect(parse(await client.callTool('list_roots'))).toEqual({
      roots: [{ uri: 'file:///srv/project', name: 'project' }],
    });
  });

  test('progress, logging and list_changed notifications arrive', async () => {
    const { client } = await spawnOfficial();
    const progress: Progress[] = [];
    await client.callTool('progress', {}, { onprogress: (p) => progress.push(p) });
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);

    await client.setLoggingLevel('info');
    const logged = new Promise((resolve) => client.on('log', resolve));
    await client.callTool('log');
    expect(await within(logged)).toMatchObject({ level: 'warning', logger: 'fixture', data: 'careful' });

    const changed = new Promise<void>((resolve) => client.on('toolsChanged', () => resolve()));
    await client.callTool('add_tool');
    await within(changed);
    expect((await client.listAllTools()).map((t) => t.name)).toContain('extra');
  });

  test('a caller abort cancels the call on the official server; a timeout stays local', async () => {
    const { client } = await spawnOfficial();
    const controller = new AbortController();
    // Abort once the tool runs (its first progress), so the cancellation meets a running handler.
    const aborted = client.callTool(
      'wait',
      {},
      { signal: controller.signal, onprogress: () => controller.abort() },
    );
    await expect(within(aborted)).rejects.toBeInstanceOf(RequestAbortedError);
    // Messages are handled in order on stdio, so the cancellation was seen before this call.
    expect((await client.callTool('cancelled')).content).toEqual([{ type: 'text', text: '1' }]);
    // A timeout is a local error; the connection keeps working. (Whether the server's handler had
    // started before the cancellation arrived depends on scheduling, so it is not counted here.)
    await expect(within(client.callTool('wait', {}, { timeoutMs: 50 }))).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
    await expect(client.ping()).resolves.toBeUndefined();
  });

  test('a tool the client cannot answer for fails on the server side, not in the client', async () => {
    // No sampling handler: the official server's createMessage gets -32601 and reports a tool error.
    const { client } = await spawnOfficial();
    const result = await client.callTool('ask_llm', { prompt: 'hi' });
    expect(result.isError).toBe(true);
    await expect(client.ping()).resolves.toBeUndefined();
  });
});
