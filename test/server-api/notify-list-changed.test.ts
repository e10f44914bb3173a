/**
 * Issue 13: `McpServer.notifyListChanged(kind)` for lists that come from data (a template's
 * `list`): coalesced per tick like registry changes, only to sessions promised `listChanged`, and
 * on this process only (never published on the fan-out).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connected(server: McpServer): Promise<Connected> {
  const c = await connect(server);
  open.push(c);
  return c;
}

/** A round trip on `c`: anything the server sent `c` before it has arrived by then (FIFO pair). */
const flush = (c: Connected) => within(c.client.request('ping', {}), 5_000, 'ping');
const methods = (c: Connected) => c.notifications.map((n) => n.method);

describe('notifyListChanged', () => {
  test('a template list that comes from data: one notification per session per tick, then the new list', async () => {
    const notes = ['a'];
    const server = new McpServer({ name: 's', version: '1' });
    server.resourceTemplate(
      'note',
      'notes://{id}',
      { mimeType: 'text/plain' },
      (_uri, { id }) => `note ${String(id)}`,
      {
        list: () => notes.map((id) => ({ uri: `notes://${id}`, name: id })),
      },
    );
    const first = await connected(server);
    const second = await connected(server);
    const firstSaw = first.nextNotification('notifications/resources/list_changed');
    const secondSaw = second.nextNotification('notifications/resources/list_changed');
    notes.push('b');
    server.notifyListChanged('resources');
    server.notifyListChanged('resources');
    await Promise.all([firstSaw, secondSaw]);
    await Promise.all([flush(first), flush(second)]);
    expect(methods(first)).toEqual(['notifications/resources/list_changed']);
    expect(methods(second)).toEqual(['notifications/resources/list_changed']);
    const { resources } = (await first.client.request('resources/list', {})) as {
      resources: { uri: string }[];
    };
    expect(resources.map((r) => r.uri)).toEqual(['notes://a', 'notes://b']);
  });

  test('each kind names its own list', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('t', { description: 'T' }, () => '');
    server.prompt('p', { description: 'P' }, () => 'p');
    const c = await connected(server);
    const prompts = c.nextNotification('notifications/prompts/list_changed');
    server.notifyListChanged('tools');
    server.notifyListChanged('prompts');
    await prompts;
    await flush(c);
    expect(methods(c)).toEqual(['notifications/tools/list_changed', 'notifications/prompts/list_changed']);
  });

  test("honours each session's capability: none without the list, none with listChanged: false", async () => {
    const server = new McpServer(
      { name: 's', version: '1' },
      { capabilities: { tools: { listChanged: false } } },
    );
    server.tool('t', { description: 'T' }, () => '');
    server.resource('r', 'test://r', {}, () => 'r');
    const c = await connected(server);
    expect(c.client.serverCapabilities?.prompts).toBeUndefined();
    const resources = c.nextNotification('notifications/resources/list_changed');
    server.notifyListChanged('tools'); // listChanged: false
    server.notifyListChanged('prompts'); // no prompts capability at all
    server.notifyListChanged('resources'); // the control: this one is sent
    await resources;
    await flush(c);
    expect(methods(c)).toEqual(['notifications/resources/list_changed']);
  });

  test('stays on this process: nothing is published on the fan-out', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('t', { description: 'T' }, () => '');
    const published: string[] = [];
    const membership = server.joinFanout({ publish: async (message) => void published.push(message) });
    const c = await connected(server);
    const tools = c.nextNotification('notifications/tools/list_changed');
    server.notifyListChanged('tools');
    await tools;
    await flush(c);
    expect(published).toEqual([]);
    // The control: a server-wide broadcast does reach the link, so the spy above can see one.
    server.server.broadcast('notifications/message', { level: 'info', data: 'x' });
    expect(published).toHaveLength(1);
    membership.leave();
  });

  test('a kind that is not a list throws a TypeError naming it', () => {
    const server = new McpServer({ name: 's', version: '1' });
    // @ts-expect-error: only 'tools' | 'resources' | 'prompts'
    expect(() => server.notifyListChanged('roots')).toThrow(/notifyListChanged.*"roots"/);
  });
});
