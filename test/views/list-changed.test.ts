/**
 * Issue 26 views: `list_changed` reaches only the callers whose view changed (legacy sessions and
 * 2026-07-28 listens), and resource updates only the subscribers that may read the resource.
 * Absence is asserted after a round trip on every connection: a notification written before the
 * answer to a later request is read before that answer (one ordered stream per connection).
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { AuthInfo } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { auth, connectAs, ERAS, type Caller, type Era } from './support.js';

useProcessGuard();

const open: Caller[] = [];
afterEach(async () => {
  for (const caller of open.splice(0)) await caller.client.close();
});

const ALICE = auth('alice', 'admin');
const BOB = auth('bob');
const ADMINS = { scopes: ['admin'] };

function build(withSecret = true): McpServer {
  const server = new McpServer({ name: 'views', version: '1.0.0' }, { onerror: undefined });
  server.tool('public', { description: 'Everyone' }, () => 'public');
  server.tool('admin', { description: 'Admins', visibleTo: ADMINS }, () => 'admin');
  server.resource('open', 'file:///open', {}, () => 'open');
  if (withSecret) server.resource('secret', 'file:///secret', { visibleTo: ADMINS }, () => 'secret');
  server.prompt('welcome', { description: 'Everyone' }, () => 'hi');
  return server;
}

/**
 * Connect as `who` and make the connection's view known to the server: legacy, a first request
 * (the session's caller is its latest request's); 2026-07-28, a listen for every list and `uris`.
 */
async function as(
  server: McpServer,
  era: Era,
  who: AuthInfo | undefined,
  uris: string[] = [],
): Promise<Caller> {
  const caller = await connectAs(server, era, who);
  open.push(caller);
  if (era === 'legacy') {
    await caller.client.listTools();
    for (const uri of uris) await caller.client.subscribeResource(uri);
  } else {
    const subscription = caller.client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      ...(uris.length > 0 ? { resourceSubscriptions: uris } : {}),
    });
    await within(subscription.acknowledged, 5_000, 'acknowledged');
  }
  return caller;
}

/** One round trip on each connection: whatever the server wrote before it has been read. */
async function settle(...callers: Caller[]): Promise<void> {
  // A change is announced in a microtask; let it go out before the round trips start.
  await Promise.resolve();
  await Promise.all(callers.map((caller) => within(caller.client.listPrompts(), 5_000, 'round trip')));
}

describe.each(ERAS)('issue 26 views: list_changed per view (%s era)', (era) => {
  test('a change reaches exactly the callers that saw the item before or see it after', async () => {
    const server = build();
    const alice = await as(server, era, ALICE);
    const bob = await as(server, era, BOB);
    const anonymous = await as(server, era, undefined);
    const everyone = [alice, bob, anonymous];
    const tools = () => everyone.map((c) => c.changed.tools);

    const beta = server.tool('beta', { description: 'Beta', visibleTo: ADMINS }, () => 'beta');
    await settle(...everyone);
    expect(tools()).toEqual([1, 0, 0]);

    // A rule change counts: Alice saw it before, Bob sees it now.
    beta.update({ visibleTo: { subjects: ['bob'] } });
    await settle(...everyone);
    expect(tools()).toEqual([2, 1, 0]);

    beta.disable();
    await settle(...everyone);
    expect(tools()).toEqual([2, 2, 0]);

    // Not seen by anyone before or after (disabled): nobody is told.
    beta.update({ description: 'Still beta' });
    await settle(...everyone);
    expect(tools()).toEqual([2, 2, 0]);

    server.tool('for-all', { description: 'Everyone' }, () => 'x');
    await settle(...everyone);
    expect(tools()).toEqual([3, 3, 1]);

    server.prompt('ops', { description: 'Admins', visibleTo: ADMINS }, () => 'ops');
    server.resource('logs', 'file:///logs', { visibleTo: { subjects: ['bob'] } }, () => 'logs');
    await settle(...everyone);
    expect(everyone.map((c) => c.changed.prompts)).toEqual([1, 0, 0]);
    expect(everyone.map((c) => c.changed.resources)).toEqual([0, 1, 0]);
    // Nothing else moved.
    expect(tools()).toEqual([3, 3, 1]);

    // A list changed through data (not a registration) and a broadcast reach everyone, as before.
    server.notifyListChanged('prompts');
    server.server.broadcast('notifications/resources/list_changed');
    await settle(...everyone);
    expect(everyone.map((c) => c.changed.prompts)).toEqual([2, 1, 1]);
    expect(everyone.map((c) => c.changed.resources)).toEqual([1, 2, 1]);
  });

  test('resource updates reach only the subscribers that may read the resource', async () => {
    const server = build();
    const uris = ['file:///secret', 'file:///open'];
    const alice = await as(server, era, ALICE, uris);
    const bob = await as(server, era, BOB, uris);

    await server.notifyResourceUpdated('file:///secret');
    await server.notifyResourceUpdated('file:///open');
    await settle(alice, bob);
    expect(alice.updated).toEqual(['file:///secret', 'file:///open']);
    expect(bob.updated).toEqual(['file:///open']);
  });
});

test('issue 26 views: a rule change decides who gets the next resource updates', async () => {
  const server = build(false);
  const secret = server.resource('secret', 'file:///secret', { visibleTo: ADMINS }, () => 'secret');
  const bob = await as(server, 'legacy', BOB, ['file:///secret']);
  const listener = await as(server, 'modern', BOB, ['file:///secret']);
  await server.notifyResourceUpdated('file:///secret');
  await settle(bob, listener);
  expect([bob.updated, listener.updated]).toEqual([[], []]);
  secret.update({ visibleTo: { subjects: ['bob'] } });
  await server.notifyResourceUpdated('file:///secret');
  await settle(bob, listener);
  expect([bob.updated, listener.updated]).toEqual([['file:///secret'], ['file:///secret']]);
});

test('issue 26 views: subscribing to a hidden resource is answered as for an unknown one', async () => {
  const legacyHere = await as(build(), 'legacy', BOB);
  const legacyThere = await as(build(false), 'legacy', BOB);
  await legacyHere.client.subscribeResource('file:///secret');
  await legacyThere.client.subscribeResource('file:///secret');
  const answer = (c: Caller) => {
    const { id: _id, ...rest } = c.written.at(-1) as { id: unknown };
    return JSON.stringify(rest);
  };
  expect(answer(legacyHere)).toBe(answer(legacyThere));

  const acknowledged = async (server: McpServer) => {
    const caller = await connectAs(server, 'modern', BOB);
    open.push(caller);
    return within(caller.client.listen({ resourceSubscriptions: ['file:///secret'] }).acknowledged);
  };
  expect(await acknowledged(build())).toEqual(await acknowledged(build(false)));
});

test('issue 26 views: a legacy session whose caller is not known yet is told of every change', async () => {
  const server = build();
  // Connected, but no request served: the server cannot know whose view the session shows.
  const quiet = await connectAs(server, 'legacy', BOB);
  open.push(quiet);
  server.tool('beta', { description: 'Beta', visibleTo: ADMINS }, () => 'beta');
  await settle(quiet);
  expect(quiet.changed.tools).toBe(1);
  // Now it is known (the round trip was a request): Bob does not see the next admin-only change.
  server.tool('gamma', { description: 'Gamma', visibleTo: ADMINS }, () => 'gamma');
  await settle(quiet);
  expect(quiet.changed.tools).toBe(1);
});

test('issue 26 views: a subscriber from before any rule existed gets the updates it may read', async () => {
  const server = new McpServer({ name: 'views', version: '1.0.0' }, { onerror: undefined });
  server.resource('open', 'file:///open', {}, () => 'open');
  server.prompt('welcome', { description: 'Everyone' }, () => 'hi');
  const alice = await connectAs(server, 'legacy', ALICE);
  const bob = await connectAs(server, 'legacy', BOB);
  open.push(alice, bob);
  await alice.client.subscribeResource('file:///report');
  await bob.client.subscribeResource('file:///report');
  // The first rule of the server comes after both subscribed (and no request since).
  server.resource('report', 'file:///report', { visibleTo: ADMINS }, () => 'report');
  await server.notifyResourceUpdated('file:///report');
  await settle(alice, bob);
  expect([alice.updated, bob.updated]).toEqual([['file:///report'], []]);
});
