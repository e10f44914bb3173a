/**
 * Issue 26 views across processes: a resource update another process published (Server fan-out
 * over a relay) reaches, on this process, only the subscribers that may read the resource here.
 */
import { afterEach, expect, test } from 'vitest';
import { MemoryRelayHub, type Relay } from 'keel-mcp/http';
import { McpServer, type FanoutMembership } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { auth, connectAs, type Caller } from './support.js';

useProcessGuard();

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** One "process" of the deployment, with the same registrations as every other. */
async function node(hub: MemoryRelayHub): Promise<McpServer> {
  const server = new McpServer({ name: 'views-node', version: '1.0.0' }, { onerror: undefined });
  server.resource('open', 'file:///open', {}, () => 'open');
  server.resource('secret', 'file:///secret', { visibleTo: { scopes: ['admin'] } }, () => 'secret');
  const relay: Relay = hub.node();
  const membership: FanoutMembership = server.joinFanout({ publish: (message) => relay.broadcast(message) });
  await relay.listen({ message() {}, broadcast: (_from, text) => membership.receive(text) });
  cleanup.push(async () => {
    membership.leave();
    await relay.close();
  });
  return server;
}

test("issue 26 views: a peer's resource update reaches only the readers here", async () => {
  const hub = new MemoryRelayHub();
  const origin = await node(hub);
  const here = await node(hub);
  const callers: Caller[] = [];
  for (const who of [auth('alice', 'admin'), auth('bob')]) {
    const caller = await connectAs(here, 'legacy', who);
    cleanup.push(() => caller.client.close());
    await caller.client.subscribeResource('file:///secret');
    await caller.client.subscribeResource('file:///open');
    callers.push(caller);
  }
  const [alice, bob] = callers as [Caller, Caller];
  const opened = (caller: Caller) =>
    new Promise<void>((resolve) => {
      const off = caller.client.on('resourceUpdated', ({ uri }) => {
        if (uri !== 'file:///open') return;
        off();
        resolve();
      });
    });
  const both = Promise.all([opened(alice), opened(bob)]);
  // Published in this order by the origin; the relay keeps a sender's order, so once the second
  // arrived here the first was delivered (or held back) before it.
  await origin.notifyResourceUpdated('file:///secret');
  await origin.notifyResourceUpdated('file:///open');
  await within(both, 5_000, 'updates relayed');
  expect(alice.updated).toEqual(['file:///secret', 'file:///open']);
  expect(bob.updated).toEqual(['file:///open']);
});
