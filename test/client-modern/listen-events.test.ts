/**
 * Brief PO item 1: in the modern era change notifications only come through a listen; they
 * ALSO reach the legacy-era events (`toolsChanged`, `promptsChanged`, `resourcesChanged`,
 * `resourceUpdated`), exactly once each, so code written for the legacy era keeps working once it
 * opens a listen; and a listen's tools list_changed drops the cached output schemas.
 */
import { describe, expect, test } from 'vitest';
import type { McpClient, McpClientEventName } from 'keel-mcp/client';
import { useProcessGuard, within } from '../helpers/guard.js';
import { keelServer, useModern } from './helpers.js';

useProcessGuard();
const { connect } = useModern();

function count(client: McpClient, events: McpClientEventName[]): Map<McpClientEventName, unknown[]> {
  const seen = new Map<McpClientEventName, unknown[]>();
  for (const event of events) {
    seen.set(event, []);
    client.on(event, (payload) => void seen.get(event)?.push(payload));
  }
  return seen;
}

describe('listen notifications reach the client events', () => {
  test('tools, prompts, resources list_changed and resources/updated: one event each', async () => {
    const server = keelServer();
    // Declared up front: a server acknowledges only the kinds it has capabilities for.
    server.resource('a', 'file:///a.txt', {}, () => 'a');
    server.prompt('first', { description: 'First' }, () => 'hi');
    const { client } = await connect(server);
    expect(client.era).toBe('modern');
    const seen = count(client, ['toolsChanged', 'promptsChanged', 'resourcesChanged', 'resourceUpdated']);
    const subscription = client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['file:///a.txt'],
    });
    expect(await within(subscription.acknowledged, 5_000, 'ack')).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['file:///a.txt'],
    });
    server.tool('more', { description: 'more' }, () => 'more');
    server.prompt('greet', { description: 'Greets' }, () => 'hi');
    server.resource('b', 'file:///b.txt', {}, () => 'b');
    await server.notifyResourceUpdated('file:///a.txt');
    // The iterator sees the four notifications; by then every one went through the handlers.
    const methods: string[] = [];
    const read = (async () => {
      for await (const note of subscription) {
        methods.push(note.method);
        if (methods.length === 4) break;
      }
    })();
    await within(read, 5_000, 'four notifications');
    // A round trip on the same ordered channel: no late duplicate is on its way.
    await client.ping();
    expect(methods.sort()).toEqual([
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
      'notifications/resources/updated',
      'notifications/tools/list_changed',
    ]);
    expect(seen.get('toolsChanged')).toEqual([undefined]);
    expect(seen.get('promptsChanged')).toEqual([undefined]);
    expect(seen.get('resourcesChanged')).toEqual([undefined]);
    // The payload keeps `_meta`: it names the subscription the update came through.
    expect(seen.get('resourceUpdated')).toEqual([
      { uri: 'file:///a.txt', _meta: { 'io.modelcontextprotocol/subscriptionId': subscription.id } },
    ]);
  });

  test('events arrive even when nobody iterates the subscription', async () => {
    const server = keelServer();
    const { client } = await connect(server);
    const seen = count(client, ['toolsChanged']);
    const changed = new Promise<void>((resolve) => client.on('toolsChanged', () => resolve()));
    const subscription = client.listen({ toolsListChanged: true });
    await within(subscription.acknowledged, 5_000, 'ack');
    server.tool('more', { description: 'more' }, () => 'more');
    await within(changed, 5_000, 'toolsChanged');
    await client.ping();
    expect(seen.get('toolsChanged')?.length).toBe(1);
    expect(await subscription.close()).toEqual({ reason: 'closed' });
  });

  test("a listen's tools list_changed drops the cached output schemas", async () => {
    const server = keelServer();
    const schema = (field: string) => ({
      type: 'object' as const,
      properties: { [field]: { type: 'number' as const } },
      required: [field],
    });
    const first = server.tool('shape', { description: 'v1', output: schema('a') }, () => ({
      content: [{ type: 'text', text: 'a' }],
      structuredContent: { a: 1 },
    }));
    const { client } = await connect(server);
    await client.listAllTools(); // caches { a } as the output schema of "shape"
    const changed = new Promise<void>((resolve) => client.on('toolsChanged', () => resolve()));
    const subscription = client.listen({ toolsListChanged: true });
    await within(subscription.acknowledged, 5_000, 'ack');
    first.remove();
    server.tool('shape', { description: 'v2', output: schema('b') }, () => ({
      content: [{ type: 'text', text: 'b' }],
      structuredContent: { b: 2 },
    }));
    await within(changed, 5_000, 'toolsChanged');
    // Against the stale { a } schema this would be a ToolOutputValidationError.
    await expect(client.callTool('shape')).resolves.toMatchObject({ structuredContent: { b: 2 } });
    await subscription.close();
  });
});
