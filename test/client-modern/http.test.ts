/**
 * Issue 10, client over real HTTP (127.0.0.1): Keel's McpClient (default era 'auto') against
 * Keel's HTTP server speaks 2026-07-28 — discover, tools, input_required rounds, `Mcp-Param-*`
 * headers the server checks, a `-32020` that re-lists and retries; against a legacy-only HTTP
 * server it falls back to initialize on a 4xx without a modern body, and remembers that per
 * server (`serverKey`): the next client sends initialize at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { McpClient, type McpClientOptions } from 'keel-mcp/client';
import { CancelledByPeerError, RequestAbortedError, RequestTimeoutError } from 'keel-mcp/core';
import { cachedEra } from '../../src/client/modern/era.js';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { registerInputRequiredTools } from '../../examples/fixture/input-required-tools.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { INFO, useModern } from './helpers.js';

useProcessGuard();
const { track } = useModern();

interface Fetched {
  body: { method?: string; params?: { _meta?: Record<string, unknown> } } | undefined;
  headers: Headers;
  status?: number;
}

function recordingFetch(log: Fetched[]): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Fetched['body']) : undefined;
    const record: Fetched = { body, headers: new Headers(init?.headers) };
    log.push(record);
    const response = await fetch(input, init);
    record.status = response.status;
    return response;
  };
}

async function client(url: string, options: McpClientOptions = {}, log: Fetched[] = []): Promise<McpClient> {
  const c = new McpClient(INFO, options);
  track(() => c.close());
  await within(
    c.connect(new StreamableHttpClientTransport(url, { fetch: recordingFetch(log) })),
    10_000,
    'connect',
  );
  return c;
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("against Keel's HTTP server: modern", () => {
  let serving: HttpServing | undefined;
  afterEach(async () => {
    await serving?.close({ deadlineMs: 2_000 });
    serving = undefined;
  });

  let held: { started: Promise<void>; aborted: Promise<unknown> } | undefined;

  async function keel(): Promise<string> {
    const server = new McpServer({ name: 'keel-http', version: '3' }, { instructions: 'over HTTP' });
    registerInputRequiredTools(server);
    let started!: () => void;
    let aborted!: (reason: unknown) => void;
    held = {
      started: new Promise<void>((resolve) => (started = resolve)),
      aborted: new Promise((resolve) => (aborted = resolve)),
    };
    server.tool('hold', { description: 'waits until cancelled' }, async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted(ctx.signal.reason), { once: true });
      started();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return 'never';
    });
    server.tool(
      'route',
      {
        description: 'mirrors region as Mcp-Param-Region',
        input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      },
      (args) => `routed to ${String(args.region)}`,
    );
    serving = await serveHttp(server, { port: 0, host: '127.0.0.1', keepAliveMs: 0 });
    return serving.url;
  }

  test('discover, input_required rounds, headers; every POST is a modern one', async () => {
    const log: Fetched[] = [];
    const c = await client(
      await keel(),
      {
        elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
        sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }),
        roots: [{ uri: 'file:///work' }],
      },
      log,
    );
    expect(c.era).toBe('modern');
    expect(c.serverInfo).toEqual({ name: 'keel-http', version: '3' });
    expect(c.instructions).toBe('over HTTP');
    expect(text(await c.callTool('test_input_required_result_multiple_inputs'))).toBe('Paris Ada (1 roots)');
    await c.listAllTools();
    expect(text(await c.callTool('route', { region: 'Zürich' }))).toBe('routed to Zürich');

    const call = log.find((f) => f.body?.method === 'tools/call' && f.headers.has('mcp-param-region'));
    expect(call?.headers.get('mcp-param-region')).toBe('=?base64?WsO8cmljaA==?=');
    for (const fetched of log) {
      expect(fetched.headers.get('mcp-protocol-version')).toBe('2026-07-28');
      expect(fetched.headers.has('mcp-session-id')).toBe(false);
      expect(fetched.body?.params?._meta?.['io.modelcontextprotocol/clientInfo']).toEqual(INFO);
    }
    expect(log.map((f) => f.body?.method)).not.toContain('initialize');
  });

  test("the caller's abort closes the call's stream: the server handler is aborted, the client goes on", async () => {
    const c = await client(await keel());
    const controller = new AbortController();
    const call = c.callTool('hold', {}, { signal: controller.signal });
    await within(held!.started, 5_000, 'hold started');
    controller.abort(new Error('user'));
    await expect(within(call)).rejects.toBeInstanceOf(RequestAbortedError);
    expect(await within(held!.aborted, 5_000, 'server handler aborted')).toBeDefined();
    expect(text(await c.callTool('route', { region: 'x' }))).toBe('routed to x');
  });

  test('guarantee 12 over HTTP: a timeout closes the call stream once; the handler sees a peer cancel; no cancel is POSTed', async () => {
    const log: Fetched[] = [];
    const c = await client(await keel(), {}, log);
    const call = c.callTool('hold', {}, { timeoutMs: 200 });
    await within(held!.started, 5_000, 'hold started');
    await expect(within(call)).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(await within(held!.aborted, 5_000, 'server handler aborted')).toBeInstanceOf(CancelledByPeerError);
    // The next call goes through, and the wire shows one POST for the abandoned call, no cancel.
    expect(text(await c.callTool('route', { region: 'x' }))).toBe('routed to x');
    const holds = log.filter((f) => (f.body?.params as { name?: string } | undefined)?.name === 'hold');
    expect(holds).toHaveLength(1);
    expect(log.map((f) => f.body?.method)).not.toContain('notifications/cancelled');
  });

  test('a call before any tools/list: the server says -32020, the client re-lists and retries with the header', async () => {
    const log: Fetched[] = [];
    const c = await client(await keel(), {}, log);
    expect(text(await c.callTool('route', { region: 'eu-1' }))).toBe('routed to eu-1');
    const sent = log.map((f) => [f.body?.method, f.status, f.headers.get('mcp-param-region')]);
    expect(sent).toEqual([
      ['server/discover', 200, null],
      ['tools/call', 400, null],
      ['tools/list', 200, null],
      ['tools/call', 200, 'eu-1'],
    ]);
  });
});

describe('against a legacy-only HTTP server', () => {
  let http: Server | undefined;
  afterEach(async () => {
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve) ?? resolve(undefined));
    http = undefined;
  });

  /** A 2025-11-25 server: a POST without a session that is not initialize gets a plain 400. */
  async function legacyServer(seen: string[]): Promise<string> {
    http = createServer((req: IncomingMessage, res: ServerResponse) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        if (req.method !== 'POST') return void res.writeHead(405).end();
        const message = JSON.parse(raw) as { id?: number; method: string };
        seen.push(message.method);
        const json = (result: object, headers: Record<string, string> = {}) =>
          res
            .writeHead(200, { 'content-type': 'application/json', ...headers })
            .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
        if (message.method === 'initialize') {
          return json(
            {
              protocolVersion: '2025-11-25',
              capabilities: { tools: {} },
              serverInfo: { name: 'old', version: '1' },
            },
            { 'mcp-session-id': 'session-1' },
          );
        }
        if (req.headers['mcp-session-id'] !== 'session-1')
          return void res.writeHead(400).end('Bad Request: no valid session');
        if (message.id === undefined) return void res.writeHead(202).end();
        if (message.method === 'tools/list')
          return json({ tools: [{ name: 'old_tool', inputSchema: { type: 'object' } }] });
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'nope' } }));
      });
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  }

  test('a 400 without a modern body sends the client to initialize; the next client skips the probe', async () => {
    const seen: string[] = [];
    const url = await legacyServer(seen);
    const first = await client(url, { renewSession: false });
    expect(first.era).toBe('legacy');
    expect((await first.listAllTools()).map((t) => t.name)).toEqual(['old_tool']);
    expect(seen).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list']);
    expect(cachedEra(new URL(url).origin + new URL(url).pathname)).toBe('legacy');

    seen.length = 0;
    const second = await client(url, { renewSession: false });
    expect(second.era).toBe('legacy');
    expect(seen).toEqual(['initialize', 'notifications/initialized']);
  });
});
