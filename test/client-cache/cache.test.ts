/**
 * Issue 26 part 5: McpClient honours the 2026-07-28 caching hints (SEP-2549) of lists and
 * `resources/read`: a result is served from the cache for `ttlMs`; `private` results only to the
 * client that fetched them, `public` ones to every client sharing a store; `list_changed` and
 * `resources/updated` drop what they make stale; per-call and per-client opt-out; errors and
 * legacy results are never cached; a caller cannot change what the next one gets.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { McpClient, ResultCache, type ClientCacheOptions } from 'keel-mcp/client';
import { McpError } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { McpServer, type CachingOptions } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of open.splice(0).reverse()) await close();
});

const HINTS: CachingOptions = {
  tools: { ttlMs: 60_000, cacheScope: 'public' },
  prompts: { ttlMs: 60_000, cacheScope: 'private' },
  read: (uri) => (uri === 'note://public' ? { ttlMs: 60_000, cacheScope: 'public' } : { ttlMs: 60_000 }),
};

interface Rig {
  server: McpServer;
  /** How many requests of each method reached the server. */
  served: Map<string, number>;
}

function newServer(caching: CachingOptions = HINTS): Rig {
  const server = new McpServer({ name: 'cache', version: '1' }, { caching, onerror: undefined });
  server.tool('echo', { description: 'echoes' }, () => 'echo');
  server.prompt('greet', { description: 'greets' }, () => 'hello');
  server.resource('public', 'note://public', { description: 'for everyone' }, () => 'public text');
  server.resource('mine', 'note://mine', { description: 'for one caller' }, () => 'my text');
  const served = new Map<string, number>();
  server.use((call, next) => {
    if (call.kind === 'request') served.set(call.method, (served.get(call.method) ?? 0) + 1);
    return next();
  });
  return { server, served };
}

async function client(
  rig: Rig,
  era: 'modern' | 'legacy' = 'modern',
  cache?: false | ClientCacheOptions,
): Promise<McpClient> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = rig.server.connect(serverSide);
  const c = new McpClient({ name: 'c', version: '1' }, cache === undefined ? { era } : { era, cache });
  await c.connect(clientSide);
  open.push(async () => {
    await c.close();
    await within(session.closed, 5_000, 'session.closed');
  });
  return c;
}

const count = (rig: Rig, method: string): number => rig.served.get(method) ?? 0;

describe('one client', () => {
  test('a result is served from the cache within ttlMs and fetched again after it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const rig = newServer();
    const c = await client(rig);
    expect(await c.listTools()).toEqual(await c.listTools());
    expect(count(rig, 'tools/list')).toBe(1);
    vi.advanceTimersByTime(59_999);
    await c.listTools();
    expect(count(rig, 'tools/list')).toBe(1);
    vi.advanceTimersByTime(1);
    await c.listTools();
    expect(count(rig, 'tools/list')).toBe(2);
  });

  test('reads are cached per URI; lists per cursor', async () => {
    const rig = newServer();
    const c = await client(rig);
    await c.readResource('note://public');
    await c.readResource('note://mine');
    await c.readResource('note://public');
    expect(count(rig, 'resources/read')).toBe(2);
    await c.listPrompts();
    await c.listPrompts({ cursor: 'zzz' }).catch(() => undefined);
    expect(count(rig, 'prompts/list')).toBe(2);
  });

  test('ttlMs 0 (the server default) caches nothing', async () => {
    const rig = newServer({});
    const c = await client(rig);
    await c.listTools();
    await c.listTools();
    expect(count(rig, 'tools/list')).toBe(2);
  });

  test("per call: 'bypass' neither reads nor writes, 'refresh' fetches and stores", async () => {
    const rig = newServer();
    const c = await client(rig);
    await c.listTools({}, { cache: 'bypass' });
    await c.listTools();
    expect(count(rig, 'tools/list')).toBe(2); // the bypass stored nothing
    await c.listTools({}, { cache: 'refresh' });
    expect(count(rig, 'tools/list')).toBe(3);
    await c.listTools();
    expect(count(rig, 'tools/list')).toBe(3);
  });

  test('cache: false turns it off for the client', async () => {
    const rig = newServer();
    const c = await client(rig, 'modern', false);
    await c.listTools();
    await c.listTools();
    expect(count(rig, 'tools/list')).toBe(2);
  });

  test('an error is never cached', async () => {
    const rig = newServer();
    const c = await client(rig);
    for (let i = 0; i < 2; i++)
      await expect(c.readResource('note://missing')).rejects.toBeInstanceOf(McpError);
    expect(count(rig, 'resources/read')).toBe(2);
  });

  test('the legacy era caches nothing (no hints)', async () => {
    const rig = newServer();
    const c = await client(rig, 'legacy');
    await c.listTools();
    await c.listTools();
    expect(count(rig, 'tools/list')).toBe(2);
  });

  test('a caller that changes a result does not change what the next caller gets', async () => {
    const rig = newServer();
    const c = await client(rig);
    const first = await c.listTools();
    first.tools[0]!.name = 'tampered';
    first.tools.push({ name: 'extra', inputSchema: { type: 'object' } });
    const second = await c.listTools();
    expect(second.tools.map((t) => t.name)).toEqual(['echo']);
    expect(count(rig, 'tools/list')).toBe(1);
  });

  test('a list_changed on a listen drops the cached pages of that list', async () => {
    const rig = newServer();
    const c = await client(rig);
    await c.listTools();
    await c.listPrompts();
    const subscription = c.listen({ toolsListChanged: true });
    open.push(() => subscription.close().then(() => undefined));
    await within(subscription.acknowledged, 5_000, 'listen acknowledged');
    const changed = new Promise<void>((resolve) => c.on('toolsChanged', () => resolve()));
    rig.server.tool('added', { description: 'new' }, () => 'new');
    await within(changed, 5_000, 'toolsChanged');
    const tools = await c.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('added');
    expect(count(rig, 'tools/list')).toBe(2);
    await c.listPrompts();
    expect(count(rig, 'prompts/list')).toBe(1); // another list stays cached
  });

  test('resources/updated on a listen drops that URI only', async () => {
    const rig = newServer();
    const c = await client(rig);
    await c.readResource('note://public');
    await c.readResource('note://mine');
    const subscription = c.listen({ resourceSubscriptions: ['note://public'] });
    open.push(() => subscription.close().then(() => undefined));
    await within(subscription.acknowledged, 5_000, 'listen acknowledged');
    const updated = new Promise<void>((resolve) => c.on('resourceUpdated', () => resolve()));
    await rig.server.notifyResourceUpdated('note://public');
    await within(updated, 5_000, 'resourceUpdated');
    await c.readResource('note://public');
    await c.readResource('note://mine');
    expect(count(rig, 'resources/read')).toBe(3);
  });
});

describe('a store shared by several clients', () => {
  test('public results are shared; private ones are served only to the client that fetched them', async () => {
    const rig = newServer();
    const store = new ResultCache();
    // Same server: the memory transport has no URL, so the clients name it themselves.
    const alice = await client(rig, 'modern', { store, serverKey: 'memory:cache' });
    const bob = await client(rig, 'modern', { store, serverKey: 'memory:cache' });
    await alice.listTools();
    await bob.listTools();
    expect(count(rig, 'tools/list')).toBe(1); // public
    await alice.listPrompts();
    await bob.listPrompts();
    expect(count(rig, 'prompts/list')).toBe(2); // private: Bob never gets Alice's
    await alice.readResource('note://mine');
    await bob.readResource('note://mine');
    expect(count(rig, 'resources/read')).toBe(2);
    await alice.listPrompts();
    expect(count(rig, 'prompts/list')).toBe(2); // Alice's own is still hers
  });

  test('two servers never mix: without a URL or serverKey nothing public is shared', async () => {
    const rig = newServer();
    const store = new ResultCache();
    const a = await client(rig, 'modern', { store });
    const b = await client(rig, 'modern', { store });
    await a.listTools();
    await b.listTools();
    expect(count(rig, 'tools/list')).toBe(2);
  });

  test('the same partition (one user, several clients) shares private results', async () => {
    const rig = newServer();
    const store = new ResultCache();
    const one = await client(rig, 'modern', { store, serverKey: 's', partition: 'user:alice' });
    const two = await client(rig, 'modern', { store, serverKey: 's', partition: 'user:alice' });
    await one.listPrompts();
    await two.listPrompts();
    expect(count(rig, 'prompts/list')).toBe(1);
  });

  test('the store is bounded: the least recently used entry goes first', async () => {
    const rig = newServer();
    const store = new ResultCache({ maxEntries: 2 });
    const c = await client(rig, 'modern', { store });
    await c.readResource('note://public');
    await c.readResource('note://mine');
    await c.readResource('note://public'); // hit: now the most recent
    await c.listTools(); // pushes out note://mine
    expect(store.size).toBe(2);
    await c.readResource('note://public');
    expect(count(rig, 'resources/read')).toBe(2);
    await c.readResource('note://mine');
    expect(count(rig, 'resources/read')).toBe(3);
  });

  test('the store is bounded in size too: a result over the bound is not kept, others make room', async () => {
    const rig = newServer();
    const store = new ResultCache({ maxSize: 400 });
    const c = await client(rig, 'modern', { store });
    await c.listPrompts(); // small
    await c.readResource('note://public');
    expect(store.size).toBe(2);
    await c.listTools(); // larger than what is left: the oldest entries go
    expect(store.size).toBeLessThan(3);
    const tiny = new ResultCache({ maxSize: 10 });
    const d = await client(rig, 'modern', { store: tiny });
    await d.listTools();
    expect(tiny.size).toBe(0);
  });

  test('bad bounds are refused', () => {
    expect(() => new ResultCache({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new ResultCache({ maxSize: -1 })).toThrow(RangeError);
  });
});

describe('over Streamable HTTP', () => {
  let serving: HttpServing | undefined;
  afterEach(async () => {
    await serving?.close({ deadlineMs: 2_000 });
    serving = undefined;
  });

  test('a -32020 (the tool list the client holds is stale) re-lists from the server, not from the cache', async () => {
    const rig = newServer();
    serving = await serveHttp(rig.server, { port: 0, host: '127.0.0.1', path: '/mcp' });
    const c = new McpClient({ name: 'stale', version: '1' }, { era: 'modern' });
    await c.connect(new StreamableHttpClientTransport(new URL(serving.url)));
    open.push(() => c.close());
    await c.listTools(); // cached for 60 s, without the tool below
    rig.server.tool(
      'route',
      {
        description: 'mirrors region as Mcp-Param-Region',
        input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      },
      (args) => `routed to ${String(args.region)}`,
    );
    const result = await c.callTool('route', { region: 'eu-1' });
    expect((result.content[0] as { text: string }).text).toBe('routed to eu-1');
    expect(count(rig, 'tools/list')).toBe(2);
  });

  test("clients of one URL share the server's public results through one store, never private ones", async () => {
    const rig = newServer();
    serving = await serveHttp(rig.server, { port: 0, host: '127.0.0.1', path: '/mcp' });
    const store = new ResultCache();
    const clients: McpClient[] = [];
    for (let i = 0; i < 2; i++) {
      const c = new McpClient({ name: `http-${i}`, version: '1' }, { era: 'modern', cache: { store } });
      await c.connect(new StreamableHttpClientTransport(new URL(serving.url)));
      open.push(() => c.close());
      clients.push(c);
    }
    for (const c of clients) await c.listTools();
    for (const c of clients) await c.listPrompts();
    expect(count(rig, 'tools/list')).toBe(1);
    expect(count(rig, 'prompts/list')).toBe(2);
  });
});
