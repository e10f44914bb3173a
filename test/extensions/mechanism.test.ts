/**
 * Issue 27 part 1: the extension mechanism (SEP-2133). `McpServer.extend` / `Server.extend` /
 * `McpClient.extend` declare an extension under `capabilities.extensions` in both eras
 * (`initialize`, `server/discover`, every 2026-07-28 request's `_meta`), run its setup, and a
 * handler asks `ctx.clientExtension(id)` per request. Written the way docs/extensions.md tells a
 * user to write their own.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { ErrorCode, McpError, extensionSettings, type Extension, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { McpServer, Server } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const INFO = { name: 'extensions', version: '1.0.0' };
const ERAS = ['legacy', 'modern'] as const;
const SEARCH = 'com.example/search';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** A user's own extension: one method, one tool that adapts to clients that declared it. */
const search: Extension<McpServer> = {
  id: SEARCH,
  settings: { maxResults: 50 },
  setup(server) {
    server.method('search/query', async (params, ctx) => {
      if (ctx.clientExtension(SEARCH) === undefined)
        throw new McpError(ErrorCode.InvalidRequest, `search/query needs the ${SEARCH} extension`);
      return { hits: [`hit for ${String(params.q)}`], asked: ctx.clientExtension(SEARCH) ?? null };
    });
    server.tool('find', { description: 'find things' }, (_args, ctx) =>
      ctx.clientExtension(SEARCH) ? 'rich results' : 'plain results',
    );
  },
};

async function connect(
  server: McpServer | Server,
  era: 'legacy' | 'modern',
  extensions: Extension<McpClient>[] = [],
): Promise<McpClient> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new McpClient({ name: 'c', version: '1' }, { era });
  for (const extension of extensions) client.extend(extension);
  await client.connect(clientSide);
  open.push({
    close: async () => {
      await client.close();
      await within(session.closed, 5_000, 'session.closed');
    },
  });
  return client;
}

const textOf = (result: JsonObject): string => (result.content as JsonObject[])[0]!.text as string;

describe.each(ERAS)('%s era', (era) => {
  test('issue 27 extensions: the server declares the extension with its settings', async () => {
    const client = await connect(new McpServer(INFO).extend(search), era);
    expect(client.serverExtension(SEARCH)).toEqual({ maxResults: 50 });
    expect(client.serverCapabilities?.extensions).toEqual({ [SEARCH]: { maxResults: 50 } });
    expect(client.serverExtension('com.example/other')).toBeUndefined();
  });

  test('issue 27 extensions: a client extension reaches the handler per request, others fall back', async () => {
    const server = new McpServer(INFO).extend(search);
    const declaring = await connect(server, era, [{ id: SEARCH, settings: { depth: 2 } }]);
    const plain = await connect(server, era);
    expect(declaring.capabilities.extensions).toEqual({ [SEARCH]: { depth: 2 } });
    expect(textOf(await declaring.callTool('find', {}))).toBe('rich results');
    expect(textOf(await plain.callTool('find', {}))).toBe('plain results');
    const answer = await declaring.lowLevel.request('search/query', { q: 'keel' });
    expect(answer).toMatchObject({ hits: ['hit for keel'], asked: { depth: 2 } });
    await expect(plain.lowLevel.request('search/query', { q: 'keel' })).rejects.toMatchObject({
      code: ErrorCode.InvalidRequest,
    });
  });

  test('issue 27 extensions: extension methods pass through the interceptors', async () => {
    const seen: string[] = [];
    const server = new McpServer(INFO).extend(search);
    server.use((call, next) => {
      seen.push(call.method);
      return next();
    });
    const client = await connect(server, era, [{ id: SEARCH }]);
    await client.lowLevel.request('search/query', { q: 'x' });
    expect(seen).toContain('search/query');
  });

  test('issue 27 extensions: the low-level Server declares and serves an extension too', async () => {
    const server = new Server(INFO, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [] }));
    server.extend({
      id: 'com.example/echo',
      setup: (s) => s.setRequestHandler('echo/say', (params) => ({ said: params.text ?? '' })),
    });
    const client = await connect(server, era);
    expect(client.serverExtension('com.example/echo')).toEqual({});
    expect(await client.lowLevel.request('echo/say', { text: 'hi' })).toMatchObject({ said: 'hi' });
  });

  test('issue 27 extensions: a client extension setup runs with the client (interceptors)', async () => {
    const server = new McpServer(INFO).extend(search);
    const tagged: string[] = [];
    const client = await connect(server, era, [
      {
        id: SEARCH,
        setup: (c) =>
          void c.use((call, next) => {
            tagged.push(call.method);
            return next();
          }),
      },
    ]);
    await client.callTool('find', {});
    expect(tagged).toContain('tools/call');
  });
});

describe('bad input', () => {
  test('issue 27 extensions: malformed identifiers, settings and duplicates throw at extend', () => {
    const server = new McpServer(INFO);
    expect(() => server.extend({ id: 'search' })).toThrow(/vendor-prefix/);
    expect(() => server.extend({ id: 'example/search' })).toThrow(/reverse-DNS/);
    expect(() => server.extend({ id: 'com.example/x', settings: [] as unknown as JsonObject })).toThrow(
      /JSON object/,
    );
    server.extend({ id: 'com.example/x' });
    expect(() => server.extend({ id: 'com.example/x' })).toThrow(/already declared/);
    expect(() =>
      new McpServer(INFO, { capabilities: { extensions: { 'com.example/y': {} } } }).extend({
        id: 'com.example/y',
      }),
    ).toThrow(/already declared/);
  });

  test('issue 27 extensions: method() refuses core methods, taken names and non-functions', () => {
    const server = new McpServer(INFO);
    server.tool('t', { description: 't' }, () => 'ok');
    expect(() => server.method('tools/list', () => ({}))).toThrow(/already served/);
    expect(() => server.method('server/discover', () => ({}))).toThrow(/already served/);
    expect(() => server.method('notifications/x', () => ({}))).toThrow(/request method/);
    expect(() => server.method('a/b', 'nope' as never)).toThrow(/function/);
    server.method('a/b', () => ({}));
    expect(() => server.method('a/b', () => ({}))).toThrow(/already served/);
  });

  test('issue 27 extensions: a client cannot add an extension after connect', async () => {
    const client = await connect(new McpServer(INFO), 'legacy');
    expect(() => client.extend({ id: SEARCH })).toThrow(/after connect/);
  });

  test('issue 27 extensions: extensionSettings ignores anything but an object', () => {
    expect(extensionSettings({ extensions: { [SEARCH]: true } }, SEARCH)).toBeUndefined();
    expect(extensionSettings({ extensions: [] }, SEARCH)).toBeUndefined();
    expect(extensionSettings(undefined, SEARCH)).toBeUndefined();
    expect(extensionSettings({ extensions: { [SEARCH]: { a: 1 } } }, SEARCH)).toEqual({ a: 1 });
  });
});
