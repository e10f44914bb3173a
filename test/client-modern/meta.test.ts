/**
 * Issue 10, client: in the 2026-07-28 era every request carries the per-request `_meta`
 * (protocol version, client capabilities in the modern shape, client info, the log level once
 * asked for), merged with what the caller or the engine put there; nothing of the handshake era
 * is sent (no initialize, no notifications/initialized, no roots/list_changed, no ping).
 */
import { describe, expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import {
  INFO,
  keelServer,
  META_CAPS,
  META_INFO,
  META_LOG,
  META_VERSION,
  methodsSent,
  MODERN,
  requestsSent,
  useModern,
} from './helpers.js';

useProcessGuard();
const { connect } = useModern();

const HANDLERS = {
  sampling: () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: 'x' }, model: 'm' }),
  elicitation: { form: () => ({ action: 'decline' as const }) },
  roots: [{ uri: 'file:///work' }],
};

describe('per-request _meta in the modern era', () => {
  test('every request carries version, capabilities (2026-07-28 shape) and client info', async () => {
    const { client, wire } = await connect(keelServer(), HANDLERS);
    expect(client.era).toBe('modern');
    await client.listTools();
    await client.callTool('echo', { text: 'hi' });
    await client.request('tools/list', {});
    await client.lowLevel.request('tools/list');

    const requests = requestsSent(wire);
    expect(requests.map((r) => r.method)).toEqual([
      'server/discover',
      'tools/list',
      'tools/call',
      'tools/list',
      'tools/list',
    ]);
    for (const { params } of requests) {
      const meta = params._meta as Record<string, unknown>;
      expect(meta[META_VERSION]).toBe(MODERN);
      expect(meta[META_INFO]).toEqual(INFO);
      // roots without listChanged: 2026-07-28 removed notifications/roots/list_changed.
      expect(meta[META_CAPS]).toEqual({ sampling: {}, elicitation: { form: {} }, roots: {} });
      expect(meta[META_LOG]).toBeUndefined();
    }
    expect(methodsSent(wire)).not.toContain('initialize');
    expect(methodsSent(wire)).not.toContain('notifications/initialized');
  });

  test("the caller's _meta and the engine's progress token are kept beside the modern keys", async () => {
    const { client, wire } = await connect(keelServer());
    const progress: number[] = [];
    await client.callTool(
      'progress',
      {},
      { meta: { traceparent: '00-abc-def-01' }, onprogress: (p) => void progress.push(p.progress) },
    );
    expect(progress).toEqual([1]);
    const call = requestsSent(wire).find((r) => r.method === 'tools/call')!;
    const meta = call.params._meta as Record<string, unknown>;
    expect(meta.traceparent).toBe('00-abc-def-01');
    expect(meta.progressToken).toBe(call.id);
    expect(meta[META_VERSION]).toBe(MODERN);
    expect(meta[META_CAPS]).toEqual({});
  });

  test('setLoggingLevel sends nothing; later requests carry the level and receive the logs', async () => {
    const { client, wire } = await connect(keelServer());
    const logs: unknown[] = [];
    client.on('log', (log) => void logs.push(log.data));

    await client.callTool('progress');
    expect(logs).toEqual([]); // no logLevel: the server sends no notifications/message
    const before = wire.sent.length;
    await client.setLoggingLevel('info');
    expect(wire.sent.length).toBe(before);
    await client.callTool('progress');
    expect(logs).toEqual(['half way']);

    const calls = requestsSent(wire).filter((r) => r.method === 'tools/call');
    expect(calls.map((c) => (c.params._meta as Record<string, unknown>)[META_LOG])).toEqual([
      undefined,
      'info',
    ]);
    expect(methodsSent(wire)).not.toContain('logging/setLevel');
  });

  test('ping becomes server/discover; setRoots sends no roots/list_changed', async () => {
    const { client, wire } = await connect(keelServer(), { roots: [{ uri: 'file:///a' }] });
    await client.ping();
    await client.setRoots([{ uri: 'file:///b' }]);
    expect(methodsSent(wire)).toEqual(['server/discover', 'server/discover']);
  });

  test('the discover answer fills protocolVersion, serverInfo, capabilities and instructions', async () => {
    const { client } = await connect(keelServer());
    expect(client.protocolVersion).toBe(MODERN);
    expect(client.serverVersions).toEqual([MODERN]);
    expect(client.serverInfo).toEqual({ name: 'keel-modern', version: '9.9.9' });
    expect(client.instructions).toBe('Modern test server');
    expect(client.serverCapabilities).toMatchObject({ tools: {}, logging: {} });
  });
});
