/**
 * Issue 9 item 16: `notifications/<list>/list_changed` goes only to sessions that were told, in
 * the capabilities they received at `initialize`, that the list can change.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { Server, McpServer } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { Client } from 'keel-mcp/client';
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

describe('list_changed follows the capabilities each session was sent', () => {
  test('a session that was not told prompts exist gets no prompts/list_changed; a later one does', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('t', { description: 'T' }, () => '');
    const early = await connected(server);
    const initialized = early.client.serverCapabilities;
    expect(initialized?.prompts).toBeUndefined();

    // The first prompt: `early` was never promised prompts (let alone listChanged).
    server.prompt('p1', { description: 'P1' }, () => 'p1');
    const late = await connected(server);
    expect(late.client.serverCapabilities?.prompts).toEqual({ listChanged: true });

    const lateSaw = late.nextNotification('notifications/prompts/list_changed');
    server.prompt('p2', { description: 'P2' }, () => 'p2');
    await lateSaw;
    // And a tools change still reaches both.
    const earlyTools = early.nextNotification('notifications/tools/list_changed');
    const lateTools = late.nextNotification('notifications/tools/list_changed');
    server.tool('t2', { description: 'T2' }, () => '');
    await Promise.all([earlyTools, lateTools]);
    await Promise.all([flush(early), flush(late)]);

    expect(methods(early)).toEqual(['notifications/tools/list_changed']);
    expect(methods(late)).toEqual(['notifications/prompts/list_changed', 'notifications/tools/list_changed']);
  });

  test('listChanged: false in the options is advertised and honoured', async () => {
    const server = new McpServer(
      { name: 's', version: '1' },
      { capabilities: { tools: { listChanged: false } } },
    );
    server.tool('t', { description: 'T' }, () => '');
    server.resource('r', 'test://r', {}, () => 'r');
    const c = await connected(server);
    expect(c.client.serverCapabilities?.tools).toEqual({ listChanged: false });
    const resources = c.nextNotification('notifications/resources/list_changed');
    server.tool('t2', { description: 'T2' }, () => '');
    server.resource('r2', 'test://r2', {}, () => 'r2');
    await resources;
    await flush(c);
    expect(methods(c)).toEqual(['notifications/resources/list_changed']);
  });

  test('the low-level Server.broadcast applies the same rule', async () => {
    const server = new Server(
      { name: 'low', version: '1' },
      { capabilities: { tools: {}, prompts: { listChanged: true } } },
    );
    server.setRequestHandler('tools/list', () => ({ tools: [] }));
    const [clientSide, serverSide] = createMemoryPair();
    const session = server.connect(serverSide);
    const client = new Client({ name: 'c', version: '1' });
    const seen: string[] = [];
    let promptsSeen!: () => void;
    const prompts = new Promise<void>((resolve) => (promptsSeen = resolve));
    client.setNotificationHandler('notifications/tools/list_changed', () => void seen.push('tools'));
    client.setNotificationHandler('notifications/prompts/list_changed', () => {
      seen.push('prompts');
      promptsSeen();
    });
    await within(client.connect(clientSide), 5_000, 'connect');
    await within(new Promise<void>((resolve) => session.onInitialized(resolve)), 5_000, 'initialized');
    server.broadcast('notifications/tools/list_changed');
    server.broadcast('notifications/prompts/list_changed');
    await within(prompts, 5_000, 'prompts/list_changed');
    await within(client.request('ping', {}), 5_000, 'ping');
    expect(seen).toEqual(['prompts']);
    await client.close();
    await within(session.closed, 5_000, 'closed');
  });
});
