import { describe, expect, test, vi } from 'vitest';
import type { McpClient, McpClientEventName, McpClientEvents } from 'keel-mcp/client';
import { useProcessGuard, within } from '../helpers/guard.js';
import { useClientFixture } from './fixtures/use-client-fixture.js';

useProcessGuard();
const { connected } = useClientFixture();

function next<E extends McpClientEventName>(client: McpClient, event: E): Promise<McpClientEvents[E]> {
  return within(
    new Promise<McpClientEvents[E]>((resolve) => {
      const off = client.on(event, (payload) => {
        off();
        resolve(payload);
      });
    }),
    2_000,
    `event ${event}`,
  );
}

describe('server notifications become client events', () => {
  test('list_changed notifications for tools, resources and prompts', async () => {
    const { client, session } = await connected();
    for (const [method, event] of [
      ['notifications/tools/list_changed', 'toolsChanged'],
      ['notifications/resources/list_changed', 'resourcesChanged'],
      ['notifications/prompts/list_changed', 'promptsChanged'],
    ] as const) {
      const seen = next(client, event);
      await session.notify(method);
      expect(await seen).toBeUndefined();
    }
  });

  test('resources/updated after subscribing', async () => {
    const { client, session } = await connected();
    await client.subscribeResource('test://r/1');
    const seen = next(client, 'resourceUpdated');
    await session.notify('notifications/resources/updated', { uri: 'test://r/1' });
    expect(await seen).toEqual({ uri: 'test://r/1' });
  });

  test('notifications/message becomes a log event', async () => {
    const { client, session } = await connected();
    await client.setLoggingLevel('info');
    const seen = next(client, 'log');
    await session.notify('notifications/message', { level: 'info', logger: 'db', data: { rows: 3 } });
    expect(await seen).toEqual({ level: 'info', logger: 'db', data: { rows: 3 } });
  });

  test('malformed notifications are dropped, not emitted', async () => {
    const { client, session } = await connected();
    const updated = vi.fn();
    const logged = vi.fn();
    client.on('resourceUpdated', updated);
    client.on('log', logged);
    await session.notify('notifications/resources/updated', { uri: 42 });
    await session.notify('notifications/message', { data: 'no level' });
    // A later well-formed notification arrives after the dropped ones (in-order transport).
    const seen = next(client, 'promptsChanged');
    await session.notify('notifications/prompts/list_changed');
    await seen;
    expect(updated).not.toHaveBeenCalled();
    expect(logged).not.toHaveBeenCalled();
  });

  test('on() returns an unsubscribe; a throwing listener does not stop the others', async () => {
    const errors: unknown[] = [];
    const { client, session } = await connected({
      connection: { logger: { debug() {}, error: (_message, detail) => void errors.push(detail) } },
    });
    const removed = vi.fn();
    const off = client.on('toolsChanged', removed);
    client.on('toolsChanged', () => {
      throw new Error('listener bug');
    });
    off();
    const seen = next(client, 'toolsChanged');
    await session.notify('notifications/tools/list_changed');
    await seen;
    expect(removed).not.toHaveBeenCalled();
    expect(errors).toEqual([expect.objectContaining({ message: 'listener bug' })]);
    // The connection keeps serving.
    await expect(client.ping()).resolves.toBeUndefined();
  });

  test('an async listener that rejects is contained: reported, never an unhandledRejection', async () => {
    // useProcessGuard fails this test on any unhandledRejection; before the fix there was one.
    const logged: unknown[] = [];
    const { client, session } = await connected({
      connection: { logger: { debug() {}, error: (_message, detail) => void logged.push(detail) } },
    });
    const later = vi.fn();
    client.on('toolsChanged', async () => {
      await Promise.resolve();
      throw new Error('async listener bug');
    });
    client.on('toolsChanged', later);
    const reported = next(client, 'error');
    await session.notify('notifications/tools/list_changed');
    expect(await reported).toEqual({
      error: expect.objectContaining({ message: 'async listener bug' }),
      event: 'toolsChanged',
    });
    expect(logged).toEqual([expect.objectContaining({ message: 'async listener bug' })]);
    expect(later).toHaveBeenCalledOnce();
    await expect(client.ping()).resolves.toBeUndefined();
  });

  test('with no error listener and no logger, a rejecting listener is still no unhandledRejection', async () => {
    const { client, session } = await connected();
    let rejected!: () => void;
    const didReject = new Promise<void>((resolve) => (rejected = resolve));
    client.on('resourcesChanged', () => {
      queueMicrotask(rejected);
      return Promise.reject(new Error('async listener bug'));
    });
    await session.notify('notifications/resources/list_changed');
    await within(didReject, 2_000, 'listener ran');
    // The guard (afterEach) fails the test if the rejection was left unhandled.
    await expect(client.ping()).resolves.toBeUndefined();
  });

  test('a failing error listener goes to the logger only (no loop)', async () => {
    const logged: unknown[] = [];
    const { client, session } = await connected({
      connection: { logger: { debug() {}, error: (_message, detail) => void logged.push(detail) } },
    });
    const errorEvents = vi.fn(() => Promise.reject(new Error('error listener bug')));
    client.on('error', errorEvents);
    client.on('promptsChanged', () => {
      throw new Error('listener bug');
    });
    await session.notify('notifications/prompts/list_changed');
    await vi.waitFor(() => expect(logged).toHaveLength(2), { timeout: 2_000 });
    expect(logged).toEqual([
      expect.objectContaining({ message: 'listener bug' }),
      expect.objectContaining({ message: 'error listener bug' }),
    ]);
    expect(errorEvents).toHaveBeenCalledOnce();
  });

  test('close fires once, whichever side closes', async () => {
    const local = await connected();
    const closedLocally = vi.fn();
    local.client.on('close', closedLocally);
    await local.client.close();
    await local.client.close();
    expect(closedLocally).toHaveBeenCalledOnce();

    const remote = await connected();
    const seen = next(remote.client, 'close');
    await remote.session.close();
    await seen;
    expect(remote.client.isConnected).toBe(false);
  });
});
