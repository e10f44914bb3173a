/**
 * Issue 10 (foundation B): the era is chosen per connection from how the client opens. A legacy
 * client (`initialize`) and a modern client (per-request `_meta`) on one McpServer instance; the
 * legacy era answers exactly as before.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCode } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from '../server-api/harness.js';
import { connectRaw, meta, MODERN, type Raw } from './harness.js';

useProcessGuard();
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

function build(): McpServer {
  const s = new McpServer({ name: 'dual', version: '1.0.0' }, { onerror: undefined });
  s.tool('echo', { description: 'Echo' }, () => 'echoed');
  s.tool('chatty', { description: 'Logs' }, async (_a, ctx) => {
    await ctx.log('info', 'hello');
    return 'logged';
  });
  s.resource('readme', 'test://readme', {}, () => 'hello');
  return s;
}

async function legacy(server: McpServer): Promise<Connected> {
  const c = await connect(server, { capabilities: { roots: {} } });
  opened.push(c);
  return c;
}

function modern(server: McpServer): Raw {
  const c = connectRaw(server);
  opened.push(c);
  return c;
}

const INITIALIZE_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'late-legacy', version: '1' },
};

describe('one McpServer, both eras', () => {
  test('a legacy and a modern client at once: each gets its own era, legacy results unchanged', async () => {
    const server = build();
    const old = await legacy(server);
    const neu = modern(server);

    const legacyList = await old.client.request('tools/list', {});
    expect(legacyList).not.toHaveProperty('resultType');
    expect(legacyList).not.toHaveProperty('ttlMs');
    expect(legacyList).not.toHaveProperty('_meta');
    expect(await old.client.request('ping', {})).toEqual({});
    expect(await old.client.request('tools/call', { name: 'echo' })).toEqual({
      content: [{ type: 'text', text: 'echoed' }],
    });
    // The legacy era keeps -32002 for an unknown resource.
    await expect(old.client.request('resources/read', { uri: 'test://nope' })).rejects.toMatchObject({
      code: ErrorCode.ResourceNotFound,
    });
    // server/discover is not a legacy method.
    await expect(old.client.request('server/discover', {})).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });

    const modernList = await neu.modern('tools/list');
    expect(modernList.resultType).toBe('complete');
    expect({
      ...modernList,
      resultType: undefined,
      _meta: undefined,
      ttlMs: undefined,
      cacheScope: undefined,
    }).toEqual({
      ...legacyList,
      resultType: undefined,
      _meta: undefined,
      ttlMs: undefined,
      cacheScope: undefined,
    });
    await expect(neu.modern('resources/read', { uri: 'test://nope' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect(old.session.era).toBe('legacy');
    expect(neu.session.era).toBe('modern');
  });

  test('server-wide log() reaches the legacy session only; a modern request without logLevel gets none', async () => {
    const server = build();
    const old = await legacy(server);
    const neu = modern(server);
    await neu.modern('tools/call', { name: 'chatty' });
    await server.log('warning', 'to everyone');
    // A round trip on each connection after the broadcast: anything it wrote is read before the answer.
    await old.client.request('ping', {});
    await neu.modern('tools/list');
    expect(neu.notifications).toEqual([]);
    expect(old.notifications.map((n) => n.params.data)).toEqual(['to everyone']);
  });

  test('a modern request on a connection that initialized is refused with -32600', async () => {
    const old = await legacy(build());
    await expect(old.client.request('tools/list', { _meta: meta() })).rejects.toMatchObject({
      code: ErrorCode.InvalidRequest,
      message: expect.stringContaining('2025-11-25'),
    });
    // The legacy session goes on as before.
    expect(await old.client.request('tools/call', { name: 'echo' })).toMatchObject({
      content: [{ type: 'text', text: 'echoed' }],
    });
  });

  test('initialize after modern requests chooses the legacy era for the connection', async () => {
    const c = modern(build());
    expect((await c.modern('server/discover')).supportedVersions).toEqual([MODERN]);
    const init = await c.client.request('initialize', INITIALIZE_PARAMS);
    expect(init).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'dual', version: '1.0.0' },
    });
    expect(init.capabilities).toMatchObject({ tools: { listChanged: true } });
    await c.client.notify('notifications/initialized');
    const list = await c.client.request('tools/list', {});
    expect(list).not.toHaveProperty('resultType');
    expect(c.session.era).toBe('legacy');
    await expect(c.modern('tools/list')).rejects.toMatchObject({ code: ErrorCode.InvalidRequest });
  });

  test('an initialize carrying modern _meta is a removed method (-32601) and changes nothing', async () => {
    const c = modern(build());
    await expect(c.modern('initialize', INITIALIZE_PARAMS)).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
    expect(c.session.protocolVersion).toBeUndefined();
    expect((await c.modern('tools/list')).resultType).toBe('complete');
  });
});
