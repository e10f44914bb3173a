import { describe, expect, test } from 'vitest';
import { McpClient, ProtocolViolationError } from 'keel-mcp/client';
import { McpError, NotConnectedError } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { createLowLevelServer, openPair, TOOLS } from './fixtures/low-level-server.js';
import { info, useClientFixture } from './fixtures/use-client-fixture.js';

useProcessGuard();

const { connected, track } = useClientFixture();

describe('McpClient requests', () => {
  test('connect runs the handshake and exposes what the server said', async () => {
    const { client, session } = await connected();
    expect(client.isConnected).toBe(true);
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toEqual({ name: 'low-level-fixture', version: '1.0.0' });
    expect(client.serverCapabilities?.tools).toEqual({ listChanged: true });
    expect(client.instructions).toBe('Fixture server');
    expect(session.clientInfo).toEqual(info);
    // No handler configured: no client capability declared.
    expect(session.clientCapabilities).toEqual({});
  });

  test('McpClient.connect creates, connects and returns a client with a default clientInfo', async () => {
    const { server } = createLowLevelServer();
    const { clientTransport, session } = openPair(server);
    const client = await within(McpClient.connect(clientTransport, { era: 'legacy' }), 5_000, 'connect');
    expect(session.clientInfo?.name).toBe('keel-client');
    await client.close();
    await within(session.closed);
  });

  test('ping resolves', async () => {
    const { client, recorder } = await connected();
    await expect(client.ping()).resolves.toBeUndefined();
    expect(recorder.requests).toEqual([]); // ping is answered by the session itself
  });

  test('listTools returns one page; tools() and listAllTools() walk every page', async () => {
    const { client, recorder } = await connected();
    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(TOOLS.slice(0, 3).map((t) => t.name));
    expect(first.nextCursor).toBe('3');
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.tools[0]?.name).toBe(TOOLS[3]?.name);

    const names: string[] = [];
    for await (const tool of client.tools()) names.push(tool.name);
    expect(names).toEqual(TOOLS.map((t) => t.name));
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(names);
    const cursors = recorder.requests.filter((r) => r.method === 'tools/list').map((r) => r.params.cursor);
    const walk = [undefined, '3', '6', '9'];
    expect(cursors).toEqual([undefined, '3', ...walk, ...walk]);
  });

  test('breaking out of tools() fetches no further page', async () => {
    const { client, recorder } = await connected();
    for await (const tool of client.tools()) if (tool.name === 'add') break;
    expect(recorder.requests.filter((r) => r.method === 'tools/list')).toHaveLength(1);
  });

  test('a closed client can connect again over a new transport', async () => {
    const { client, server, session } = await connected();
    await client.close();
    await within(session.closed);
    const again = openPair(server);
    track(async () => {
      await client.close();
      await within(again.session.closed);
    });
    await within(client.connect(again.clientTransport));
    expect(client.isConnected).toBe(true);
    await expect(client.ping()).resolves.toBeUndefined();
  });

  test('a server error rejects with McpError carrying its code', async () => {
    const { client } = await connected();
    const error = await client.listTools({ cursor: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602 });
  });

  test('resources: list, walk all pages, templates, read, subscribe, unsubscribe', async () => {
    const { client, recorder } = await connected();
    expect((await client.listResources()).resources).toHaveLength(3);
    const all = await client.listAllResources();
    expect(all.map((r) => r.uri)).toEqual(Array.from({ length: 7 }, (_, i) => `test://r/${i}`));
    expect((await client.listAllResourceTemplates())[0]?.uriTemplate).toBe('test://t/{id}');
    expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(1);
    const read = await client.readResource('test://r/1');
    expect(read.contents[0]).toEqual({
      uri: 'test://r/1',
      mimeType: 'text/plain',
      text: 'contents of test://r/1',
    });
    await expect(client.readResource('file:///missing')).rejects.toMatchObject({ code: -32002 });
    await client.subscribeResource('test://r/1');
    await client.unsubscribeResource('test://r/1');
    const methods = recorder.requests.map((r) => r.method);
    expect(methods).toContain('resources/subscribe');
    expect(methods).toContain('resources/unsubscribe');
    expect(recorder.requests.find((r) => r.method === 'resources/subscribe')?.params).toEqual({
      uri: 'test://r/1',
    });
  });

  test('prompts: list, walk, get with arguments', async () => {
    const { client, recorder } = await connected();
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet', 'plain']);
    expect(await client.listAllPrompts()).toHaveLength(2);
    const names: string[] = [];
    for await (const prompt of client.prompts()) names.push(prompt.name);
    expect(names).toEqual(['greet', 'plain']);
    const prompt = await client.getPrompt('greet', { who: 'Ada' });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Ada' });
    await client.getPrompt('plain');
    const gets = recorder.requests.filter((r) => r.method === 'prompts/get').map((r) => r.params);
    expect(gets).toEqual([{ name: 'greet', arguments: { who: 'Ada' } }, { name: 'plain' }]);
  });

  test('complete and setLoggingLevel', async () => {
    const { client, recorder } = await connected();
    const { completion } = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'A' },
    });
    expect(completion).toEqual({ values: ['A1', 'A2'], total: 2, hasMore: false });
    await client.setLoggingLevel('warning');
    expect(recorder.requests.at(-1)).toEqual({ method: 'logging/setLevel', params: { level: 'warning' } });
  });

  test('request() reaches methods without a helper', async () => {
    const { client } = await connected();
    await expect(client.request('no/such/method')).rejects.toMatchObject({ code: -32601 });
  });

  test('calls before connect fail with NotConnectedError', async () => {
    const client = new McpClient(info);
    await expect(client.listTools()).rejects.toBeInstanceOf(NotConnectedError);
    await expect(client.callTool('add')).rejects.toBeInstanceOf(NotConnectedError);
    expect(client.isConnected).toBe(false);
    await client.close(); // harmless
  });
});

describe('McpClient against a misbehaving server', () => {
  async function misbehaving(setup: (server: Server) => void) {
    const server = new Server({ name: 'bad', version: '1' }, { capabilities: { tools: {}, prompts: {} } });
    setup(server);
    const { clientTransport, session } = openPair(server);
    const client = await McpClient.connect(clientTransport, { era: 'legacy' });
    track(async () => {
      await client.close();
      await within(session.closed);
    });
    return client;
  }

  test('a cursor loop stops with ProtocolViolationError instead of spinning', async () => {
    let calls = 0;
    const client = await misbehaving((server) =>
      server.setRequestHandler('tools/list', () => {
        calls++;
        return {
          tools: [{ name: `t${calls}`, inputSchema: { type: 'object' } }],
          nextCursor: calls === 1 ? 'a' : 'b',
        };
      }),
    );
    const error = await within(client.listAllTools(), 5_000, 'listing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolViolationError);
    expect((error as Error).message).toMatch(/repeated cursor "b"/);
    expect(calls).toBe(3);
  });

  test('maxPages bounds a listing that never ends', async () => {
    let calls = 0;
    const client = await misbehaving((server) =>
      server.setRequestHandler('prompts/list', () => ({ prompts: [], nextCursor: String(++calls) })),
    );
    await expect(client.listAllPrompts({ maxPages: 5 })).rejects.toThrow(/exceeded 5 pages/);
    expect(calls).toBe(5);
  });

  // Issue 24 point 6: the four list / iterate / list-all trios share one walk; each keeps its method and key.
  const LISTS = [
    {
      method: 'tools/list',
      key: 'tools',
      helpers: ['listTools', 'listAllTools', 'tools'],
      item: (n: number) => ({ name: `t${n}`, inputSchema: { type: 'object' } }),
    },
    {
      method: 'resources/list',
      key: 'resources',
      helpers: ['listResources', 'listAllResources', 'resources'],
      item: (n: number) => ({ uri: `file:///${n}`, name: `r${n}` }),
    },
    {
      method: 'resources/templates/list',
      key: 'resourceTemplates',
      helpers: ['listResourceTemplates', 'listAllResourceTemplates', 'resourceTemplates'],
      item: (n: number) => ({ uriTemplate: `file:///${n}/{x}`, name: `rt${n}` }),
    },
    {
      method: 'prompts/list',
      key: 'prompts',
      helpers: ['listPrompts', 'listAllPrompts', 'prompts'],
      item: (n: number) => ({ name: `p${n}` }),
    },
  ] as const;

  /** The trio of one list on `client`, by name: one page, all items, page by page. */
  function trio(client: McpClient, [page, all, each]: (typeof LISTS)[number]['helpers']) {
    const call = (name: string) => (client[name as keyof McpClient] as () => unknown).call(client);
    return {
      page: () => call(page) as Promise<Record<string, unknown>>,
      all: () => call(all) as Promise<unknown[]>,
      each: () => call(each) as AsyncIterable<unknown>,
    };
  }

  test.each(LISTS)(
    '$method: one page, every page, page by page; a page without $key is refused',
    async (list) => {
      const cursors: unknown[] = [];
      const client = await misbehaving((server) => {
        server.capabilities = { tools: {}, prompts: {}, resources: {} };
        server.setRequestHandler(list.method, (params) => {
          cursors.push(params.cursor);
          return params.cursor === undefined
            ? { [list.key]: [list.item(1), list.item(2)], nextCursor: 'c2' }
            : { [list.key]: [list.item(3)] };
        });
      });
      const { page, all, each } = trio(client, list.helpers);
      expect((await page())[list.key]).toEqual([list.item(1), list.item(2)]);
      expect(await all()).toEqual([1, 2, 3].map(list.item));
      const walked: unknown[] = [];
      for await (const item of each()) walked.push(item);
      expect(walked).toEqual([1, 2, 3].map(list.item));
      expect(cursors).toEqual([undefined, undefined, 'c2', undefined, 'c2']);

      const broken = await misbehaving((server) => {
        server.capabilities = { tools: {}, prompts: {}, resources: {} };
        server.setRequestHandler(list.method, () => ({ items: [] }));
      });
      const error = await trio(broken, list.helpers)
        .all()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolViolationError);
      expect((error as Error).message).toBe(`${list.method}: the server's result has no ${list.key} array`);
    },
  );

  test('malformed results are refused with ProtocolViolationError', async () => {
    const client = await misbehaving((server) => {
      server.setRequestHandler('tools/list', () => ({ tools: 'nope' }));
      server.setRequestHandler('tools/call', () => ({ content: 'nope' }));
      server.setRequestHandler('prompts/get', () => ({}));
      server.setRequestHandler('completion/complete', () => ({ completion: {} }));
    });
    await expect(client.listTools()).rejects.toBeInstanceOf(ProtocolViolationError);
    await expect(client.callTool('x')).rejects.toBeInstanceOf(ProtocolViolationError);
    await expect(client.getPrompt('x')).rejects.toBeInstanceOf(ProtocolViolationError);
    await expect(
      client.complete({ ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } }),
    ).rejects.toBeInstanceOf(ProtocolViolationError);
  });

  test('a tools/call result without content gets an empty content array', async () => {
    const client = await misbehaving((server) => server.setRequestHandler('tools/call', () => ({})));
    expect(await client.callTool('x')).toEqual({ content: [] });
  });
});
