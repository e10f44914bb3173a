/**
 * Issue 10 (foundation B) over a real stdio child: the conformance fixture (dist) served to a
 * modern client, then to a legacy client on the same process (one McpServer instance), and a
 * legacy-only process answering exactly as before.
 */
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { ErrorCode } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import {
  assertBuilt,
  CHILD_TEST_TIMEOUT_MS,
  INITIALIZE,
  RawServer,
  ROOT,
  useChildCleanup,
  type Json,
  endAndExpectCleanExit,
} from '../stdio/helpers.js';
import { join } from 'node:path';
import { meta, MODERN } from './harness.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const FIXTURE = join(ROOT, 'dist', 'examples', 'fixture-stdio.js');
const SERVER_INFO = {
  'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: expect.any(String) }),
};

let next = 0;
/** Send a request and await its response (bounded). */
async function call(server: RawServer, method: string, params: Json): Promise<Json> {
  const id = `r${++next}`;
  server.send({ jsonrpc: '2.0', id, method, params });
  return server.response(id);
}

function modern(server: RawServer, method: string, params: Json = {}, extra: Json = {}): Promise<Json> {
  return call(server, method, { ...params, _meta: meta(extra) });
}

const finish = endAndExpectCleanExit;

describe('the fixture over stdio', () => {
  test('a modern client, then a legacy client on the same process: both work', async () => {
    const server = new RawServer(FIXTURE);

    const discover = await modern(server, 'server/discover');
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      _meta: SERVER_INFO,
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(discover.result.capabilities.tools).toEqual({ listChanged: true }); // delivered on subscriptions/listen

    const list = await modern(server, 'tools/list');
    expect(list.result).toMatchObject({
      resultType: 'complete',
      _meta: SERVER_INFO,
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(list.result.tools.map((t: Json) => t.name)).toContain('test_simple_text');

    const text = await modern(server, 'tools/call', { name: 'test_simple_text', arguments: {} });
    expect(text.result).toMatchObject({ resultType: 'complete', _meta: SERVER_INFO });
    expect(text.result.content[0].type).toBe('text');
    expect(text.result).not.toHaveProperty('ttlMs');

    // Logging only for a request that asked for it.
    const quiet = await modern(server, 'tools/call', { name: 'test_tool_with_logging', arguments: {} });
    expect(quiet.result.resultType).toBe('complete');
    expect(server.messages.filter((m) => m.method === 'notifications/message')).toEqual([]);
    const loud = await modern(
      server,
      'tools/call',
      { name: 'test_tool_with_logging', arguments: {} },
      { 'io.modelcontextprotocol/logLevel': 'info' },
    );
    expect(loud.result.resultType).toBe('complete');
    expect(server.messages.filter((m) => m.method === 'notifications/message')).toHaveLength(3);

    // The errors, each with its code.
    const sampling = await modern(server, 'tools/call', {
      name: 'test_sampling',
      arguments: { prompt: 'hi' },
    });
    expect(sampling.error).toMatchObject({
      code: ErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { sampling: {} } },
    });
    const version = await modern(
      server,
      'tools/list',
      {},
      {
        'io.modelcontextprotocol/protocolVersion': '1900-01-01',
      },
    );
    expect(version.error).toMatchObject({
      code: ErrorCode.UnsupportedProtocolVersion,
      data: { supported: [MODERN], requested: '1900-01-01' },
    });
    const missing = await modern(
      server,
      'tools/list',
      {},
      {
        'io.modelcontextprotocol/clientCapabilities': undefined,
      },
    );
    expect(missing.error.code).toBe(ErrorCode.InvalidParams);
    const resource = await modern(server, 'resources/read', { uri: 'test://no-such-resource' });
    expect(resource.error.code).toBe(ErrorCode.InvalidParams);
    const ping = await modern(server, 'ping');
    expect(ping.error.code).toBe(ErrorCode.MethodNotFound);
    // No server→client request was ever written.
    expect(server.messages.filter((m) => m.method !== undefined && m.id !== undefined)).toEqual([]);

    // A legacy client takes over the process with initialize.
    server.send(INITIALIZE);
    const init = await server.response('init');
    expect(init.result).toMatchObject({ protocolVersion: '2025-11-25' });
    expect(init.result.capabilities.tools).toEqual({ listChanged: true });
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const legacyList = await call(server, 'tools/list', {});
    expect(legacyList.result).not.toHaveProperty('resultType');
    expect(legacyList.result).not.toHaveProperty('ttlMs');
    expect((await call(server, 'ping', {})).result).toEqual({});
    const legacyMissing = await call(server, 'resources/read', { uri: 'test://no-such-resource' });
    expect(legacyMissing.error.code).toBe(ErrorCode.ResourceNotFound);

    await finish(server);
  });

  test('a legacy-only process answers as before; a modern request on it is refused (-32600)', async () => {
    const server = new RawServer(FIXTURE);
    server.send(INITIALIZE);
    const init = await server.response('init');
    expect(Object.keys(init.result).sort()).toEqual([
      'capabilities',
      'instructions',
      'protocolVersion',
      'serverInfo',
    ]);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const call1 = await call(server, 'tools/call', { name: 'test_simple_text', arguments: {} });
    expect(Object.keys(call1.result)).toEqual(['content']);
    const refused = await modern(server, 'tools/list');
    expect(refused.error.code).toBe(ErrorCode.InvalidRequest);
    const discover = await call(server, 'server/discover', {});
    expect(discover.error.code).toBe(ErrorCode.MethodNotFound);
    await finish(server);
  });
});
