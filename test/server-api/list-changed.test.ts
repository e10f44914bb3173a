import { afterEach, describe, expect, test } from 'vitest';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function toolNames(c: Connected): Promise<string[]> {
  const { tools } = (await c.client.request('tools/list', {})) as { tools: { name: string }[] };
  return tools.map((t) => t.name);
}

/** Let queued microtasks (the coalesced notifier) and the in-memory hop run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('list_changed and handles', () => {
  test('add, disable, enable, update and remove at runtime each notify once per tick', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    const first = server.tool('first', { description: 'First' }, () => 'one');
    open = await connect(server);
    expect(open.notifications).toEqual([]);

    let changed = open.nextNotification('notifications/tools/list_changed');
    const second = server.tool('second', { description: 'Second' }, () => 'two');
    server.tool('third', { description: 'Third' }, () => 'three');
    await changed;
    await settle();
    // Two registrations in one tick: one notification.
    expect(open.notifications.filter((n) => n.method === 'notifications/tools/list_changed')).toHaveLength(1);
    expect(await toolNames(open)).toEqual(['first', 'second', 'third']);

    changed = open.nextNotification('notifications/tools/list_changed');
    second.disable();
    await changed;
    expect(second.enabled).toBe(false);
    expect(await toolNames(open)).toEqual(['first', 'third']);
    await expect(open.client.request('tools/call', { name: 'second' })).rejects.toMatchObject({
      code: -32602,
    });

    changed = open.nextNotification('notifications/tools/list_changed');
    second.enable();
    await changed;
    expect(await open.client.request('tools/call', { name: 'second' })).toEqual({
      content: [{ type: 'text', text: 'two' }],
    });

    changed = open.nextNotification('notifications/tools/list_changed');
    first.update({ description: 'First, renamed', handler: () => 'uno' });
    await changed;
    const { tools } = (await open.client.request('tools/list', {})) as { tools: { description: string }[] };
    expect(tools[0]!.description).toBe('First, renamed');
    expect(await open.client.request('tools/call', { name: 'first' })).toEqual({
      content: [{ type: 'text', text: 'uno' }],
    });

    changed = open.nextNotification('notifications/tools/list_changed');
    first.remove();
    await changed;
    expect(await toolNames(open)).toEqual(['second', 'third']);
    expect(() => first.enable()).toThrow(/removed/);
    // The name is free again.
    server.tool('first', { description: 'Back' }, () => '');
  });

  test('resources and prompts notify their own lists', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('t', { description: 'T' }, () => '');
    const r = server.resource('r', 'test://r', {}, () => 'r');
    server.prompt('p', { description: 'P' }, () => 'p');
    open = await connect(server);
    const resources = open.nextNotification('notifications/resources/list_changed');
    server.resource('r2', 'test://r2', {}, () => 'r2');
    await resources;
    const prompts = open.nextNotification('notifications/prompts/list_changed');
    server.prompt('p2', { description: 'P2' }, () => 'p2');
    await prompts;
    const again = open.nextNotification('notifications/resources/list_changed');
    r.disable();
    await again;
    expect(open.notifications.map((n) => n.method)).toEqual([
      'notifications/resources/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
  });

  test('nothing is sent before any client connects, and a no-op disable sends nothing', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    const t = server.tool('t', { description: 'T' }, () => '');
    t.disable();
    t.enable();
    open = await connect(server);
    t.enable();
    await settle();
    await within(open.client.request('ping', {}), 2_000);
    expect(open.notifications).toEqual([]);
  });
});
