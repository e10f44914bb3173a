/**
 * Brief PO item 1: in the modern era, McpClient methods 2026-07-28 removed fail locally with
 * `RemovedInModernEraError` (nothing sent) and say what to use; the ones with a modern meaning
 * keep working (`ping` → server/discover, `setRoots` → a documented no-op, `complete`); the
 * legacy era is unchanged.
 */
import { describe, expect, test } from 'vitest';
import { ModernOnlyError, RemovedInModernEraError } from 'keel-mcp/client';
import { LocalError } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { keelServer, methodsSent, useModern } from './helpers.js';

useProcessGuard();
const { connect } = useModern();

describe('legacy-only calls in the modern era', () => {
  test('subscribeResource fails locally and points at listen({ resourceSubscriptions })', async () => {
    const { client, wire } = await connect(keelServer());
    expect(client.era).toBe('modern');
    const before = wire.sent.length;
    const error = await client.subscribeResource('file:///a.txt').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemovedInModernEraError);
    expect(error).toBeInstanceOf(LocalError);
    expect(error).toMatchObject({ method: 'resources/subscribe' });
    expect((error as Error).message).toMatch(/client\.listen\(\{ resourceSubscriptions: \[uri\] \}\)/);
    expect(wire.sent.length).toBe(before);
  });

  test('unsubscribeResource fails locally and says to close the subscription', async () => {
    const { client, wire } = await connect(keelServer());
    const error = await client.unsubscribeResource('file:///a.txt').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RemovedInModernEraError', method: 'resources/unsubscribe' });
    expect((error as Error).message).toMatch(/subscription\.close\(\)/);
    expect(methodsSent(wire)).not.toContain('resources/unsubscribe');
  });

  test('request() refuses the removed methods locally, and passes any other one on', async () => {
    const { client, wire } = await connect(keelServer());
    for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'initialize']) {
      await expect(client.request(method, {})).rejects.toMatchObject({
        name: 'RemovedInModernEraError',
        method,
      });
    }
    // A name that only looks like a table key (Object.prototype) is not "removed".
    await expect(client.request('toString', {})).rejects.toMatchObject({ code: -32601 });
    await expect(client.request('tools/list', {})).resolves.toMatchObject({ tools: expect.any(Array) });
    const sent = methodsSent(wire);
    for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'initialize'])
      expect(sent).not.toContain(method);
  });

  test('ping sends server/discover; setRoots and notifyRootsChanged send nothing and resolve', async () => {
    const { client, wire } = await connect(keelServer(), { roots: [{ uri: 'file:///w', name: 'w' }] });
    await client.ping();
    await client.setRoots([{ uri: 'file:///other', name: 'other' }]);
    await client.notifyRootsChanged();
    const sent = methodsSent(wire);
    expect(sent.filter((m) => m === 'server/discover').length).toBe(2); // the probe, then ping
    expect(sent).not.toContain('ping');
    expect(sent).not.toContain('notifications/roots/list_changed');
  });

  test('complete exists in 2026-07-28 and is sent', async () => {
    const server = keelServer();
    server.prompt(
      'greet',
      {
        description: 'Greets',
        args: [{ name: 'who', required: true }],
        complete: { who: (value) => [`${value}lice`] },
      },
      () => 'hi',
    );
    const { client, wire } = await connect(server);
    const { completion } = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'A' },
    });
    expect(completion.values).toEqual(['Alice']);
    expect(methodsSent(wire)).toContain('completion/complete');
  });

  test('the legacy era still sends resources/subscribe', async () => {
    const server = keelServer();
    server.resource('a', 'file:///a.txt', {}, () => 'a');
    const { client, wire } = await connect(server, { era: 'legacy' });
    expect(client.era).toBe('legacy');
    await client.subscribeResource('file:///a.txt').catch(() => undefined);
    expect(methodsSent(wire)).toContain('resources/subscribe');
  });
});

describe('the modern-only listen in the legacy era', () => {
  test('ends lost with ModernOnlyError at once; nothing is sent', async () => {
    const { client, wire } = await connect(keelServer(), { era: 'legacy' });
    const before = wire.sent.length;
    const subscription = client.listen({ toolsListChanged: true });
    const end = await within(subscription.ended, 5_000, 'end');
    expect(end.reason).toBe('lost');
    const error = end.reason === 'lost' ? end.error : undefined;
    expect(error).toBeInstanceOf(ModernOnlyError);
    expect(error).toMatchObject({ method: 'subscriptions/listen' });
    expect(error?.message).toMatch(/subscribeResource\(uri\)/);
    await expect(subscription.acknowledged).rejects.toBeInstanceOf(ModernOnlyError);
    expect(wire.sent.length).toBe(before);
  });
});
