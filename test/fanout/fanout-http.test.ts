/**
 * Issue 12 over real HTTP (127.0.0.1): a 2026-07-28 `subscriptions/listen` held by a process that
 * serves HTTP without sessions (`sessions: false`: every request stands alone, so any process may
 * take it) gets the resource updates and user broadcasts raised on another process, in order.
 * (That a registry `list_changed` stays on its process is proven in fanout.test.ts.)
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { McpClient, type SubscriptionNotification } from 'keel-mcp/client';
import { MemoryRelayHub, StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { joinHub, makeServer, UPDATED, WATCHED, type Node } from './support.js';

useProcessGuard();

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await within(close(), 5_000, 'cleanup');
});

async function httpNode(hub: MemoryRelayHub, name: string): Promise<{ node: Node; serving: HttpServing }> {
  const node = await joinHub(makeServer(name), hub);
  const serving = await serveHttp(node.server, {
    port: 0,
    host: '127.0.0.1',
    keepAliveMs: 0,
    sessions: false,
  });
  closers.push(async () => {
    node.membership.leave();
    await node.relay.close();
  });
  closers.push(() => serving.close({ deadlineMs: 2_000 }));
  return { node, serving };
}

test('a listen on server 3 over HTTP gets what server 1 raises', async () => {
  const hub = new MemoryRelayHub();
  const { node: n1 } = await httpNode(hub, 'server-1');
  await httpNode(hub, 'server-2');
  const { serving: s3 } = await httpNode(hub, 'server-3');

  const client = new McpClient({ name: 'listener', version: '1' }, { era: 'modern' });
  await within(client.connect(new StreamableHttpClientTransport(s3.url)), 10_000, 'connect');
  closers.push(() => client.close());
  const subscription = client.listen({ toolsListChanged: true, resourceSubscriptions: [WATCHED] });
  await within(subscription.acknowledged, 5_000, 'acknowledged');
  const notes = subscription[Symbol.asyncIterator]();
  const next = async (): Promise<SubscriptionNotification> => {
    const step = await within(notes.next(), 5_000, 'a notification on the listen');
    expect(step.done).toBe(false);
    return step.value as SubscriptionNotification;
  };

  await n1.server.notifyResourceUpdated(WATCHED);
  n1.server.server.broadcast('notifications/tools/list_changed');

  expect(await next()).toMatchObject({ method: UPDATED, params: { uri: WATCHED } });
  expect(await next()).toMatchObject({ method: 'notifications/tools/list_changed' });
  await subscription.close();
});
