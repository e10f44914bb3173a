/**
 * Issue 10, client: era detection at connect (spec: versioning and stdio "Backward
 * Compatibility"). A DiscoverResult or a recognised 2026-07-28 error → modern; any other error, a
 * transport failure or silence until the probe timeout → initialize on the same transport. Cached
 * per server (`serverKey`); a cached legacy server is not probed, unless initialize then fails.
 */
import { describe, expect, test } from 'vitest';
import { McpClient, NoSharedVersionError, NotModernServerError } from 'keel-mcp/client';
import { cachedEra } from '../../src/client/modern/era.js';
import { ErrorCode, McpError, RequestAbortedError, type JsonRpcMessage, type Transport } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { legacyOnly } from '../helpers/legacy-only-transport.js';
import {
  discoverResult,
  INFO,
  initializeResult,
  keelServer,
  META_VERSION,
  methodsSent,
  MODERN,
  requestsSent,
  useModern,
} from './helpers.js';

useProcessGuard();
const { connect, raw, track } = useModern();

function client(options: ConstructorParameters<typeof McpClient>[1] = {}): McpClient {
  const c = new McpClient(INFO, options);
  track(() => c.close());
  return c;
}

/** A transport with a `serverKey`, as the HTTP client transport has one. */
function keyed(transport: Transport, serverKey: string): Transport {
  return Object.assign(transport, { serverKey });
}

describe('auto: the probe decides', () => {
  test('a Keel server answers server/discover: modern', async () => {
    const { client: c, wire } = await connect(keelServer());
    expect(c.era).toBe('modern');
    expect(methodsSent(wire)).toEqual(['server/discover']);
  });

  test('a legacy-only Keel server (-32601 to the probe): initialize on the same transport', async () => {
    const { client: c, wire } = await connect(keelServer(), {}, (t) => legacyOnly(t));
    expect(c.era).toBe('legacy');
    expect(c.protocolVersion).toBe('2025-11-25');
    expect(c.serverVersions).toBeUndefined();
    expect(methodsSent(wire)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(await c.callTool('echo', { text: 'x' })).toMatchObject({ content: [{ type: 'text', text: 'x' }] });
  });

  test.each([
    ['-32602 (a legacy server refusing a pre-initialize request)', ErrorCode.InvalidParams, undefined],
    ['-32600', ErrorCode.InvalidRequest, undefined],
    ['-32022 without a supported list', ErrorCode.UnsupportedProtocolVersion, { nothing: true }],
    ['-32021 without requiredCapabilities', ErrorCode.MissingRequiredClientCapability, undefined],
    ['-32000 (implementation-defined)', -32000, undefined],
    // 2026-07-28 gives -32020 no data: nothing tells it from a legacy server's own use of the code.
    [
      '-32020 (no data tells a 2026-07-28 HeaderMismatch from a legacy code)',
      ErrorCode.HeaderMismatch,
      undefined,
    ],
  ])('any other error, %s: legacy', async (_name, code, data) => {
    const server = raw({
      'server/discover': () => {
        throw new McpError(code, 'nope', data);
      },
      initialize: () => initializeResult(),
    });
    const c = client();
    await within(c.connect(server.transport));
    expect(c.era).toBe('legacy');
    expect(server.seen).toEqual(['server/discover', 'initialize']);
  });

  test('a result that is not a DiscoverResult: legacy', async () => {
    const server = raw({
      'server/discover': () => ({ hello: 'world' }),
      initialize: () => initializeResult(),
    });
    const c = client();
    await within(c.connect(server.transport));
    expect(c.era).toBe('legacy');
  });

  test('a server silent until initialize: legacy after discoverTimeoutMs; the probe is cancelled', async () => {
    const server = raw({
      'server/discover': (_p, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(new Error('cancelled'))),
        ),
      initialize: () => initializeResult(),
    });
    const c = client({ discoverTimeoutMs: 50 });
    await within(c.connect(server.transport));
    expect(c.era).toBe('legacy');
    expect(methodsSent(server.transport)).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
    ]);
  });

  test("the caller's abort during the probe fails connect (no fallback)", async () => {
    const server = raw({
      'server/discover': () => new Promise(() => undefined),
      initialize: () => initializeResult(),
    });
    const controller = new AbortController();
    const c = client();
    const connecting = c.connect(server.transport, { signal: controller.signal });
    controller.abort(new Error('user'));
    await expect(within(connecting)).rejects.toBeInstanceOf(RequestAbortedError);
    expect(server.seen).not.toContain('initialize');
  });
});

describe('-32022 UnsupportedProtocolVersion: the server is modern', () => {
  test('naming a version we share: the probe is retried with it, no initialize', async () => {
    let calls = 0;
    const server = raw({
      'server/discover': () => {
        if (++calls === 1)
          throw new McpError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported', {
            supported: [MODERN],
            requested: 'x',
          });
        return discoverResult();
      },
    });
    const c = client();
    await within(c.connect(server.transport));
    expect(c.era).toBe('modern');
    expect(c.serverInfo).toEqual({ name: 'modern-raw', version: '2' });
    expect(server.seen).toEqual(['server/discover', 'server/discover']);
    const versions = requestsSent(server.transport).map(
      (r) => (r.params._meta as Record<string, unknown>)[META_VERSION],
    );
    expect(versions).toEqual([MODERN, MODERN]);
  });

  test('naming no version we share: connect fails naming both lists', async () => {
    const server = raw({
      'server/discover': () => {
        throw new McpError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported', {
          supported: ['2099-01-01'],
          requested: MODERN,
        });
      },
      initialize: () => initializeResult(),
    });
    const c = client();
    const error = await within(c.connect(server.transport)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoSharedVersionError);
    expect((error as NoSharedVersionError).message).toContain('2099-01-01');
    expect((error as NoSharedVersionError).message).toContain(MODERN);
    expect((error as NoSharedVersionError).message).toContain('2025-11-25');
    expect(server.seen).toEqual(['server/discover']);
    expect(c.isConnected).toBe(false);
  });

  test('naming only a handshake revision we share: initialize', async () => {
    const server = raw({
      'server/discover': () => {
        throw new McpError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported', {
          supported: ['2025-11-25'],
        });
      },
      initialize: () => initializeResult(),
    });
    const c = client();
    await within(c.connect(server.transport));
    expect(c.era).toBe('legacy');
  });

  test('a later request refused with -32022 naming our version is retried once with it', async () => {
    let refused = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/list': () => {
        if (++refused === 1)
          throw new McpError(ErrorCode.UnsupportedProtocolVersion, 'no', { supported: [MODERN] });
        return { tools: [] };
      },
    });
    const c = client();
    await within(c.connect(server.transport));
    expect(await c.listTools()).toMatchObject({ tools: [] });
    expect(server.seen).toEqual(['server/discover', 'tools/list', 'tools/list']);
  });
});

describe('other recognised modern errors to the probe: the server is modern, connect fails with them', () => {
  test.each([
    [
      '-32021 with requiredCapabilities',
      ErrorCode.MissingRequiredClientCapability,
      { requiredCapabilities: { roots: {} } },
    ],
  ])('%s: no initialize', async (_name, code, data) => {
    const server = raw({
      'server/discover': () => {
        throw new McpError(code, 'modern refusal', data);
      },
      initialize: () => initializeResult(),
    });
    const c = client();
    await expect(within(c.connect(server.transport))).rejects.toMatchObject({ code });
    expect(server.seen).toEqual(['server/discover']);
    expect(c.isConnected).toBe(false);
  });
});

describe('era option', () => {
  test("'legacy' sends initialize at once", async () => {
    const { client: c, wire } = await connect(keelServer(), { era: 'legacy' });
    expect(c.era).toBe('legacy');
    expect(methodsSent(wire)[0]).toBe('initialize');
  });

  test("'modern' against a legacy server fails clearly and does not initialize", async () => {
    const server = raw({ initialize: () => initializeResult() });
    const c = client({ era: 'modern' });
    await expect(within(c.connect(server.transport))).rejects.toBeInstanceOf(NotModernServerError);
    expect(server.seen).toEqual(['server/discover']);
  });
});

describe('cache per server (serverKey)', () => {
  test('a server found legacy is not probed again in this process', async () => {
    const key = 'http://127.0.0.1:1/mcp-legacy';
    const first = raw({ initialize: () => initializeResult() });
    await within(client().connect(keyed(first.transport, key)));
    expect(first.seen).toEqual(['server/discover', 'initialize']);
    expect(cachedEra(key)).toBe('legacy');

    const second = raw({ initialize: () => initializeResult() });
    const c = client();
    await within(c.connect(keyed(second.transport, key)));
    expect(c.era).toBe('legacy');
    expect(second.seen).toEqual(['initialize']);
  });

  test('a cached legacy server whose initialize fails is probed again (now modern)', async () => {
    const key = 'http://127.0.0.1:1/mcp-upgraded';
    const legacy = raw({ initialize: () => initializeResult() });
    await within(client().connect(keyed(legacy.transport, key)));

    const upgraded = raw({ 'server/discover': () => discoverResult() });
    const c = client();
    await within(c.connect(keyed(upgraded.transport, key)));
    expect(c.era).toBe('modern');
    expect(upgraded.seen).toEqual(['initialize', 'server/discover']);
    expect(cachedEra(key)).toBe('modern');
  });

  test('stdio-like transports (no serverKey) are probed on every connect', async () => {
    for (let i = 0; i < 2; i++) {
      const server = raw({ initialize: () => initializeResult() });
      await within(client().connect(server.transport));
      expect(server.seen).toEqual(['server/discover', 'initialize']);
    }
  });
});

test('the probe carries the full modern _meta', async () => {
  const server = raw({ 'server/discover': () => discoverResult() });
  await within(client({ roots: [{ uri: 'file:///r' }] }).connect(server.transport));
  const [probe] = requestsSent(server.transport);
  expect(probe!.params._meta).toEqual({
    [META_VERSION]: MODERN,
    'io.modelcontextprotocol/clientCapabilities': { roots: {} },
    'io.modelcontextprotocol/clientInfo': INFO,
  });
  const sent: JsonRpcMessage[] = server.transport.sent;
  expect(sent).toHaveLength(1);
});
