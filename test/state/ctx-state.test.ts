/**
 * Issue 28 item 3: `ctx.state`, a small key-value store per session and per principal, for
 * handlers in both eras; in memory by default, shared (Redis) across processes so a session
 * adopted by another process keeps its values.
 */
import { afterEach, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import type { JsonObject } from 'keel-mcp/core';
import {
  createHttpHandler,
  InMemoryEventStore,
  InMemorySessionStore,
  MemoryRelayHub,
  StreamableHttpClientTransport,
  type HttpHandler,
} from 'keel-mcp/http';
import { createMemoryPair } from 'keel-mcp/memory';
import { InMemoryStateStore, McpServer, type StateOptions } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const text = (result: JsonObject) => (result.content as { text: string }[])[0]!.text;

function stateServer(name = 'state', state?: StateOptions): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, state ? { state } : {});
  server.tool('visit', { description: 'Counts visits per session and per principal' }, async (_args, ctx) => {
    const session = await ctx.state.session.increment('visits');
    const principal = await ctx.state.principal.increment('visits');
    return `${name}: session ${session}, principal ${principal}`;
  });
  server.tool('remember', { description: 'Keeps a list in the session' }, async (_args, ctx) => {
    const list = (await ctx.state.session.get<string[]>('list')) ?? [];
    list.push(`item ${list.length + 1}`);
    await ctx.state.session.set('list', list);
    return list.join(', ');
  });
  server.tool('mine', { description: 'The principal scope only' }, async (_args, ctx) =>
    String(await ctx.state.principal.increment('n')),
  );
  server.tool('bad', { description: 'Stores what JSON cannot hold' }, async (_args, ctx) => {
    await ctx.state.principal.set('fn', () => 1);
    return 'stored';
  });
  return server;
}

async function memoryClient(server: McpServer, era: 'legacy' | 'modern'): Promise<McpClient> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new McpClient({ name: 'c', version: '1' }, { era });
  await client.connect(clientSide);
  open.push({ close: async () => (await client.close(), await within(session.closed)) });
  return client;
}

test('issue 28 ctx.state (memory transport, legacy): the session scope lasts across calls and is new per session; the local principal is shared', async () => {
  const server = stateServer();
  const first = await memoryClient(server, 'legacy');
  expect(text(await first.callTool('visit'))).toBe('state: session 1, principal 1');
  expect(text(await first.callTool('visit'))).toBe('state: session 2, principal 2');
  expect(text(await first.callTool('remember'))).toBe('item 1');
  expect(text(await first.callTool('remember'))).toBe('item 1, item 2');
  const second = await memoryClient(server, 'legacy');
  expect(text(await second.callTool('visit'))).toBe('state: session 1, principal 3');
  expect(text(await second.callTool('remember'))).toBe('item 1');
});

test('issue 28 ctx.state (2026-07-28): no session scope — a clear error; the principal scope works', async () => {
  const server = stateServer();
  const client = await memoryClient(server, 'modern');
  const refused = await client.callTool('remember');
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/ctx\.state\.session: this request has no session/);
  expect(text(await client.callTool('mine'))).toBe('1');
  expect(text(await client.callTool('mine'))).toBe('2');
});

test('issue 28 ctx.state: values JSON cannot hold and writes past a bound are refused clearly', async () => {
  const server = stateServer('bounded', { maxKeys: 1 });
  const client = await memoryClient(server, 'legacy');
  const bad = await client.callTool('bad');
  expect(bad.isError).toBe(true);
  expect(text(bad)).toMatch(/the value for "fn" cannot be stored as JSON/);
  expect(text(await client.callTool('mine'))).toBe('1');
  // `visit` writes a second key in the principal scope (maxKeys 1): refused, naming the bound.
  const over = await client.callTool('visit');
  expect(over.isError).toBe(true);
  expect(text(over)).toMatch(/already holds 1 keys \(maxKeys\)/);
});

test('issue 28 ctx.state over HTTP with auth: each verified principal has its own scope; without auth there is none', async () => {
  const server = stateServer('http');
  const handler = createHttpHandler(server, {});
  open.push({ close: () => handler.close({ deadlineMs: 1_000 }) });
  const clientAs = async (subject: string | undefined) => {
    const fetch: typeof globalThis.fetch = (input, init) =>
      handler(
        new Request(input, init),
        subject === undefined ? undefined : { authInfo: { subject, clientId: 'c', scopes: [] } },
      );
    const client = await McpClient.connect(
      new StreamableHttpClientTransport('http://127.0.0.1/mcp', { fetch }),
      { era: 'legacy' },
    );
    open.push(client);
    return client;
  };
  const alice = await clientAs('alice');
  const bob = await clientAs('bob');
  expect(text(await alice.callTool('mine'))).toBe('1');
  expect(text(await alice.callTool('mine'))).toBe('2');
  expect(text(await bob.callTool('mine'))).toBe('1');
  const nobody = await clientAs(undefined);
  const refused = await nobody.callTool('mine');
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/no verified principal/);
  // The session scope needs no principal.
  expect(text(await nobody.callTool('remember'))).toBe('item 1');
});

test('issue 28 ctx.state: with a memory store a session’s values go when it ends; a shared store keeps them for the process that adopts it', async () => {
  // A store shared by both "processes" (what RedisStateStore is), wrapped to say so.
  class SharedStore extends InMemoryStateStore {
    override readonly sharedAcrossProcesses = true;
  }
  const store = new SharedStore();
  const hub = new MemoryRelayHub();
  const sessions = new InMemorySessionStore();
  const eventStore = new InMemoryEventStore();
  const handlers: HttpHandler[] = ['p1', 'p2'].map((name) =>
    createHttpHandler(stateServer(name, { store }), {
      keepAliveMs: 0,
      relayCheckMs: 10,
      eventStore,
      backplane: { relay: hub.node(name), sessions },
    }),
  );
  open.push({ close: () => Promise.all(handlers.map((handler) => handler.close({ deadlineMs: 1_000 }))) });
  const route = { to: 0 };
  const fetch: typeof globalThis.fetch = (input, init) => handlers[route.to]!(new Request(input, init));
  const client = await McpClient.connect(
    new StreamableHttpClientTransport('http://127.0.0.1/mcp', { fetch }),
    { era: 'legacy' },
  );
  open.push(client);
  expect(text(await client.callTool('remember'))).toBe('item 1');
  expect(text(await client.callTool('remember'))).toBe('item 1, item 2');
  hub.crash('p1');
  route.to = 1;
  expect(text(await within(client.callTool('remember')))).toBe('item 1, item 2, item 3');

  // In one process (memory store), the session's scope is cleared when the session ends.
  const local = new InMemoryStateStore();
  const single = stateServer('single', { store: local });
  const c = await memoryClient(single, 'legacy');
  await c.callTool('remember');
  const scopes = () => (local as unknown as { scopes: Map<string, unknown> }).scopes;
  expect([...scopes().keys()].filter((k) => k.startsWith('session:'))).toHaveLength(1);
  await open.pop()!.close();
  for (let turn = 0; turn < 20 && [...scopes().keys()].some((k) => k.startsWith('session:')); turn++)
    await new Promise((resolve) => setImmediate(resolve));
  expect([...scopes().keys()].filter((k) => k.startsWith('session:'))).toEqual([]);
});
