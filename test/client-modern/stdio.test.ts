/**
 * Issue 10, client over real stdio children: Keel's McpClient (default era 'auto') against
 * Keel's built conformance fixture speaks 2026-07-28 (discover, per-request _meta, input_required
 * rounds through the legacy handlers, cancel mid-round); against a legacy server that ignores
 * the probe it falls back to initialize after the probe timeout; against the official SDK 1.x
 * server (legacy only) it falls back on its error.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { McpClient, type McpClientOptions } from 'keel-mcp/client';
import { RequestAbortedError } from 'keel-mcp/core';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { assertBuilt, CHILD_TEST_TIMEOUT_MS, ROOT, WAIT_MS } from '../stdio/helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
beforeAll(assertBuilt);

const FIXTURE = `${ROOT}/dist/examples/fixture-stdio.js`;
const SILENT = fileURLToPath(new URL('./fixtures/silent-legacy-server.mjs', import.meta.url));
const OFFICIAL_V1 = fileURLToPath(new URL('../client-api/fixtures/official-server.mjs', import.meta.url));

const open: McpClient[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await within(client.close(), WAIT_MS, 'client close');
});

async function spawn(
  script: string,
  options: McpClientOptions = {},
): Promise<{ client: McpClient; stderr: string[] }> {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script],
    stderr: 'pipe',
    onStderr: (text) => void stderr.push(text),
  });
  const client = new McpClient({ name: 'keel-modern-stdio', version: '1.0.0' }, options);
  open.push(client);
  await within(client.connect(transport), WAIT_MS, `connect to ${script}`);
  return { client, stderr };
}

const HANDLERS: McpClientOptions = {
  elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }),
  roots: [{ uri: 'file:///work' }],
};

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("Keel's fixture over stdio: modern", () => {
  test('discover, tools, input_required rounds through the legacy handlers', async () => {
    const { client } = await spawn(FIXTURE, HANDLERS);
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo?.name).toBeTypeOf('string');
    const names = (await client.listAllTools()).map((t) => t.name);
    expect(names).toContain('test_input_required_result_elicitation');
    expect(text(await client.callTool('test_input_required_result_elicitation'))).toBe('Hello, Ada!');
    expect(text(await client.callTool('test_input_required_result_sampling'))).toBe(
      'Sampling response: Paris',
    );
    expect(text(await client.callTool('test_input_required_result_list_roots'))).toBe('Roots: file:///work');
    expect(text(await client.callTool('test_input_required_result_multiple_inputs'))).toBe(
      'Paris Ada (1 roots)',
    );
    await client.ping();
  });

  test('cancel mid-round: the call rejects, no retry is sent, the connection goes on', async () => {
    let reached!: () => void;
    const asked = new Promise<void>((resolve) => (reached = resolve));
    let handlerSignal: AbortSignal | undefined;
    const { client } = await spawn(FIXTURE, {
      elicitation: {
        form: (_params, ctx) => {
          handlerSignal = ctx.signal;
          reached();
          return new Promise(() => undefined);
        },
      },
    });
    const controller = new AbortController();
    const call = client.callTool('test_input_required_result_elicitation', {}, { signal: controller.signal });
    await within(asked, WAIT_MS, 'the elicitation handler');
    controller.abort(new Error('user left'));
    await expect(within(call, WAIT_MS, 'the aborted call')).rejects.toBeInstanceOf(RequestAbortedError);
    expect(handlerSignal?.aborted).toBe(true);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('legacy servers over stdio: fallback to initialize', () => {
  test('a server silent before initialize: the probe times out, then the handshake', async () => {
    const { client, stderr } = await spawn(SILENT, { discoverTimeoutMs: 300 });
    expect(client.era).toBe('legacy');
    expect(client.serverInfo).toEqual({ name: 'silent-legacy', version: '1' });
    expect(stderr.join('')).toContain('IGNORED server/discover');
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['only']);
  });

  test('the official SDK 1.x server (legacy only): its error to the probe sends the client to initialize', async () => {
    const { client } = await spawn(OFFICIAL_V1, HANDLERS);
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect((await client.callTool<{ sum: number }>('add', { a: 2, b: 40 })).structuredContent).toEqual({
      sum: 42,
    });
  });
});
