/**
 * Issue 26 views: a 2026-07-28 list or read whose content depends on the caller (an item of it has
 * a `visibleTo` rule) is `cacheScope: "private"` whatever `caching` says; the others keep exactly
 * the configured hints.
 */
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { auth, connectAs, type Caller } from './support.js';

useProcessGuard();

const open: Caller[] = [];
afterEach(async () => {
  for (const caller of open.splice(0)) await caller.client.close();
});

const PUBLIC = { ttlMs: 60_000, cacheScope: 'public' };

/** The caching hints of the answer to `method`, as written on the wire. */
async function hints(caller: Caller, method: string, params: JsonObject = {}): Promise<JsonObject> {
  await within(caller.client.request(method, params));
  const { ttlMs, cacheScope } = (caller.written.at(-1) as { result: JsonObject }).result;
  return { ttlMs, cacheScope };
}

test('issue 26 views: cacheScope is private exactly for the lists and reads that depend on the caller', async () => {
  const server = new McpServer(
    { name: 'views', version: '1.0.0' },
    { onerror: undefined, caching: { default: { ttlMs: 60_000, cacheScope: 'public' } } },
  );
  server.tool('public', { description: 'Everyone' }, () => 'x');
  server.prompt('welcome', { description: 'Everyone' }, () => 'hi');
  server.resource('open', 'file:///open', {}, () => 'open');
  server.resourceTemplate('doc', 'docs://{id}', {}, () => 'doc');
  const caller = await connectAs(server, 'modern', auth('alice', 'admin'));
  open.push(caller);
  const all = async () => ({
    tools: await hints(caller, 'tools/list'),
    prompts: await hints(caller, 'prompts/list'),
    resources: await hints(caller, 'resources/list'),
    templates: await hints(caller, 'resources/templates/list'),
    read: await hints(caller, 'resources/read', { uri: 'file:///open' }),
  });
  const PRIVATE = { ttlMs: 60_000, cacheScope: 'private' };

  // No rules: the configured hints, exactly.
  expect(await all()).toEqual({
    tools: PUBLIC,
    prompts: PUBLIC,
    resources: PUBLIC,
    templates: PUBLIC,
    read: PUBLIC,
  });

  const admin = server.tool('admin', { description: 'Admins', visibleTo: { scopes: ['admin'] } }, () => 'x');
  expect(await all()).toEqual({
    tools: PRIVATE,
    prompts: PUBLIC,
    resources: PUBLIC,
    templates: PUBLIC,
    read: PUBLIC,
  });

  // A template's rule: resources/list (its `list`), the template list and reads all depend on it.
  server.resourceTemplate('vault', 'vault://{id}', { visibleTo: { subjects: ['alice'] } }, () => 'v');
  expect(await all()).toEqual({
    tools: PRIVATE,
    prompts: PUBLIC,
    resources: PRIVATE,
    templates: PRIVATE,
    read: PRIVATE,
  });

  // Rules gone: back to the configured hints.
  admin.update({ visibleTo: undefined });
  server.prompt('ops', { description: 'Admins', visibleTo: { scopes: ['admin'] } }, () => 'ops').remove();
  expect((await all()).tools).toEqual(PUBLIC);
  expect((await all()).prompts).toEqual(PUBLIC);
});
