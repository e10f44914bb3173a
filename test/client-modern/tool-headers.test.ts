/**
 * Issue 10, client: in the modern era `tools/list` leaves out tools with invalid `x-mcp-header`
 * annotations (one warning each through the connection logger), `callTool` passes the mirrored
 * arguments as `Mcp-Param-*` headers (`RequestOptions.headers` → `Transport.send`), and a `-32020`
 * HeaderMismatch re-lists the tools and retries once.
 */
import { describe, expect, test } from 'vitest';
import { McpClient, type McpClientOptions } from 'keel-mcp/client';
import { ErrorCode, McpError, type JsonRpcMessage, type SendOptions } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { MemoryTransport } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { RecordingTransport } from '../helpers/recording-transport.js';
import { discoverResult, INFO, useModern } from './helpers.js';

useProcessGuard();
const { raw, track } = useModern();

/** Records the headers each message was sent with. */
class HeaderRecorder extends RecordingTransport {
  readonly sends: { method?: string | undefined; headers?: Readonly<Record<string, string>> | undefined }[] =
    [];
  override send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    this.sends.push({ method: (message as { method?: string }).method, headers: options?.headers });
    return super.send(message, options);
  }
}

const REGION = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
};

const INVALID_TOOLS = [
  {
    name: 'bad_number',
    inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
  },
  {
    name: 'bad_duplicate',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'string', 'x-mcp-header': 'Dup' },
        b: { type: 'string', 'x-mcp-header': 'dup' },
      },
    },
  },
];

/** Keel's server refuses invalid annotations at registration: only valid tools here. */
function headerServer(): McpServer {
  const server = new McpServer({ name: 'headers', version: '1' });
  server.tool(
    'execute_sql',
    { description: 'valid', input: REGION },
    (args) => `ran in ${String(args.region)}`,
  );
  server.tool('plain', { description: 'no headers' }, () => 'plain');
  return server;
}

/** A server listing invalid tools too (as a server that does not check them would). */
function listingServer(era: 'modern' | 'legacy') {
  return raw({
    ...(era === 'modern'
      ? { 'server/discover': () => discoverResult() }
      : {
          initialize: () => ({
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'l', version: '1' },
          }),
        }),
    'tools/list': () => ({
      tools: [
        { name: 'execute_sql', inputSchema: REGION },
        ...INVALID_TOOLS,
        { name: 'plain', inputSchema: { type: 'object' } },
      ],
    }),
    'tools/call': () => ({ content: [{ type: 'text', text: 'ok' }] }),
  });
}

async function connectRecorded(server: McpServer, options: McpClientOptions) {
  const clientSide = new HeaderRecorder();
  const serverSide = new MemoryTransport();
  MemoryTransport.link(clientSide, serverSide);
  const session = server.connect(serverSide);
  const client = new McpClient(INFO, options);
  track(async () => {
    await client.close();
    await session.closed;
  });
  await within(client.connect(clientSide));
  return { client, wire: clientSide };
}

function logger(warnings: string[]) {
  return { debug: () => undefined, error: (message: string) => void warnings.push(message) };
}

describe('modern era', () => {
  test('invalid tools are left out with one warning each; valid ones are kept', async () => {
    const warnings: string[] = [];
    const server = listingServer('modern');
    const client = new McpClient(INFO, { connection: { logger: logger(warnings) } });
    track(() => client.close());
    await within(client.connect(server.transport));
    expect(client.era).toBe('modern');
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['execute_sql', 'plain']);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/"bad_number".*"number" is not permitted/);
    expect(warnings[1]).toMatch(/"bad_duplicate".*already used by/);
  });

  test('callTool sends the mirrored argument as Mcp-Param-*, encoded; none for null or other tools', async () => {
    const { client, wire } = await connectRecorded(headerServer(), {});
    await client.listTools();
    const result = await client.callTool(
      'execute_sql',
      { region: 'Zürich', query: 'select 1' },
      { headers: { 'X-Trace': '1' } },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'ran in Zürich' }]);
    await client
      .callTool('execute_sql', { region: null as unknown as string, query: 'q' })
      .catch(() => undefined);
    await client.callTool('plain');
    const calls = wire.sends.filter((s) => s.method === 'tools/call');
    expect(calls.map((c) => c.headers)).toEqual([
      { 'X-Trace': '1', 'Mcp-Param-Region': '=?base64?WsO8cmljaA==?=' },
      undefined,
      undefined,
    ]);
  });
});

test('legacy era: nothing is left out and no header is computed', async () => {
  const warnings: string[] = [];
  const server = listingServer('legacy');
  const headers: unknown[] = [];
  const send = server.transport.send.bind(server.transport);
  server.transport.send = (message, options) => {
    if ((message as { method?: string }).method === 'tools/call') headers.push(options?.headers);
    return send(message, options);
  };
  const client = new McpClient(INFO, { connection: { logger: logger(warnings) } });
  track(() => client.close());
  await within(client.connect(server.transport));
  expect(client.era).toBe('legacy');
  expect((await client.listAllTools()).map((t) => t.name)).toEqual([
    'execute_sql',
    'bad_number',
    'bad_duplicate',
    'plain',
  ]);
  await client.callTool('execute_sql', { region: 'eu', query: 'q' });
  expect(headers).toEqual([undefined]);
  expect(warnings).toEqual([]);
});

describe('-32020 HeaderMismatch on tools/call', () => {
  const mismatch = () =>
    new McpError(ErrorCode.HeaderMismatch, 'Header mismatch: Mcp-Param-Region header is required');

  test('re-lists the tools and retries once, now with the header', async () => {
    const calls: (Readonly<Record<string, string>> | undefined)[] = [];
    let lists = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/list': () => (++lists, { tools: [{ name: 'execute_sql', inputSchema: REGION }] }),
      'tools/call': () => {
        if (calls.length === 1) throw mismatch();
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    });
    const wire = server.transport;
    const send = wire.send.bind(wire);
    wire.send = (message, options) => {
      if ((message as { method?: string }).method === 'tools/call') calls.push(options?.headers);
      return send(message, options);
    };
    const client = new McpClient(INFO);
    track(() => client.close());
    await within(client.connect(wire));
    // Never listed: the first call goes without headers, the server says -32020.
    expect(await client.callTool('execute_sql', { region: 'eu', query: 'q' })).toMatchObject({
      content: [{ text: 'ok' }],
    });
    expect(lists).toBe(1);
    expect(calls).toEqual([undefined, { 'Mcp-Param-Region': 'eu' }]);
  });

  test('a second -32020 is the caller’s error (exactly two calls, one re-list)', async () => {
    let calls = 0;
    let lists = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/list': () => (++lists, { tools: [] }),
      'tools/call': () => {
        calls++;
        throw mismatch();
      },
    });
    const client = new McpClient(INFO);
    track(() => client.close());
    await within(client.connect(server.transport));
    await expect(client.callTool('t', {})).rejects.toMatchObject({ code: ErrorCode.HeaderMismatch });
    expect(calls).toBe(2);
    expect(lists).toBe(1);
  });
});
