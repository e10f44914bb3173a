/**
 * Issue 10 (foundation B): the 2026-07-28 request pipeline over the memory transport. Per-request
 * `_meta`, `server/discover`, `resultType`, serverInfo, caching hints, modern error codes, removed
 * methods, request-scoped logging, and the not-yet-wired back-channel.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { CancelledByPeerError, ErrorCode } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connectRaw, meta, MODERN, type Raw } from './harness.js';

useProcessGuard();
let open: Raw | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const SERVER_INFO = { name: 'modern-test', version: '2.0.0' };

function build(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const s = new McpServer(SERVER_INFO, { instructions: 'Use echo', onerror: undefined, ...options });
  s.tool('echo', { description: 'Echo', input: z.object({ text: z.string() }) }, ({ text }) => text);
  s.tool('ask', { description: 'Asks the user' }, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'Units?', schema: { type: 'object', properties: {} } });
    return answer.action;
  });
  s.tool('chatty', { description: 'Logs' }, async (_a, ctx) => {
    await ctx.log('debug', 'debug line');
    await ctx.log('warning', 'warning line');
    return 'logged';
  });
  s.tool('who', { description: 'Who is calling' }, (_a, ctx) =>
    JSON.stringify({
      info: ctx.clientInfo ?? null,
      caps: ctx.clientCapabilities,
      version: ctx.session.protocolVersion ?? null,
    }),
  );
  s.resource('readme', 'test://readme', { mimeType: 'text/plain' }, () => 'hello');
  s.resource('user', 'test://user', { mimeType: 'text/plain' }, () => 'private data');
  s.prompt('greet', { description: 'Greets' }, () => 'Say hello');
  return s;
}

const serverInfoMeta = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };

describe('server/discover', () => {
  test('versions, modern capabilities, serverInfo in _meta, instructions, caching hints', async () => {
    open = connectRaw(build());
    const result = await open.modern('server/discover');
    expect(result).toEqual({
      resultType: 'complete',
      supportedVersions: [MODERN],
      // As declared: listChanged / subscribe are delivered on subscriptions/listen.
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
      },
      instructions: 'Use echo',
      _meta: serverInfoMeta,
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  test('without _meta it is a malformed modern request (-32602), not an unknown method', async () => {
    open = connectRaw(build());
    await expect(open.client.request('server/discover', {})).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('io.modelcontextprotocol/protocolVersion'),
    });
  });
});

describe('results', () => {
  test('tools/list and tools/call carry resultType and serverInfo; only the list has caching hints', async () => {
    open = connectRaw(build());
    const list = await open.modern('tools/list');
    expect(list.resultType).toBe('complete');
    expect(list._meta).toEqual(serverInfoMeta);
    expect(list.ttlMs).toBe(0);
    expect(list.cacheScope).toBe('private');
    expect((list.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'ask', 'chatty', 'who']);

    const call = await open.modern('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(call).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      resultType: 'complete',
      _meta: serverInfoMeta,
    });
  });

  test('caching hints are set per list and per resource URI', async () => {
    open = connectRaw(
      build({
        caching: {
          default: { ttlMs: 1_000 },
          tools: { ttlMs: 300_000, cacheScope: 'public' },
          read: (uri) => (uri === 'test://readme' ? { ttlMs: 60_000, cacheScope: 'public' } : undefined),
        },
      }),
    );
    const hints = (r: Record<string, unknown>) => ({ ttlMs: r.ttlMs, cacheScope: r.cacheScope });
    expect(hints(await open.modern('tools/list'))).toEqual({ ttlMs: 300_000, cacheScope: 'public' });
    expect(hints(await open.modern('prompts/list'))).toEqual({ ttlMs: 1_000, cacheScope: 'private' });
    expect(hints(await open.modern('resources/list'))).toEqual({ ttlMs: 1_000, cacheScope: 'private' });
    expect(hints(await open.modern('resources/templates/list'))).toEqual({
      ttlMs: 1_000,
      cacheScope: 'private',
    });
    expect(hints(await open.modern('server/discover'))).toEqual({ ttlMs: 1_000, cacheScope: 'private' });
    const readme = await open.modern('resources/read', { uri: 'test://readme' });
    expect(hints(readme)).toEqual({ ttlMs: 60_000, cacheScope: 'public' });
    const user = await open.modern('resources/read', { uri: 'test://user' });
    expect(hints(user)).toEqual({ ttlMs: 1_000, cacheScope: 'private' });
    const prompt = await open.modern('prompts/get', { name: 'greet' });
    expect(prompt.ttlMs).toBeUndefined();
    expect(prompt.resultType).toBe('complete');
  });

  test('a bad caching option throws at construction, not on a request', () => {
    expect(() => build({ caching: { tools: { ttlMs: -1 } } })).toThrow(RangeError);
    expect(() => build({ caching: { default: { cacheScope: 'shared' as 'public' } } })).toThrow(RangeError);
  });

  test('a per-resource hint function that returns a bad hint fails that read with -32603', async () => {
    open = connectRaw(build({ caching: { read: () => ({ ttlMs: 1.5 }) } }));
    await expect(open.modern('resources/read', { uri: 'test://readme' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: expect.stringContaining('ttlMs'),
    });
    // The server goes on.
    expect((await open.modern('tools/list')).resultType).toBe('complete');
  });

  test("the client facts come from each request's own _meta, never from an earlier one", async () => {
    open = connectRaw(build());
    const first = await open.modern(
      'tools/call',
      { name: 'who' },
      {
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      },
    );
    const second = await open.modern(
      'tools/call',
      { name: 'who' },
      {
        'io.modelcontextprotocol/clientInfo': undefined,
      },
    );
    const text = (r: Record<string, unknown>) => JSON.parse((r.content as { text: string }[])[0]!.text);
    expect(text(first)).toEqual({
      info: { name: 'raw-modern', version: '1' },
      caps: { elicitation: {} },
      version: MODERN,
    });
    expect(text(second)).toEqual({ info: null, caps: {}, version: MODERN });
  });
});

describe('errors', () => {
  test('-32022 for an unsupported version, with the supported list and the requested one', async () => {
    open = connectRaw(build());
    const failure = open.modern(
      'tools/list',
      {},
      { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' },
    );
    await expect(failure).rejects.toMatchObject({
      code: ErrorCode.UnsupportedProtocolVersion,
      data: { supported: [MODERN], requested: '1900-01-01' },
    });
    // A handshake revision is not a per-request version either.
    await expect(
      open.modern('server/discover', {}, { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }),
    ).rejects.toMatchObject({ code: ErrorCode.UnsupportedProtocolVersion });
  });

  test('-32602 for each missing or malformed required _meta key', async () => {
    open = connectRaw(build());
    const cases = [
      { 'io.modelcontextprotocol/clientCapabilities': undefined },
      { 'io.modelcontextprotocol/clientCapabilities': 'all' },
      { 'io.modelcontextprotocol/protocolVersion': 20260728 },
      { 'io.modelcontextprotocol/clientInfo': { name: 'x' } },
      { 'io.modelcontextprotocol/logLevel': 'loud' },
    ];
    for (const extra of cases) {
      await expect(open.modern('tools/list', {}, extra)).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
      });
    }
    // On a fresh connection too: capabilities without a version are a modern client's mistake.
    const fresh = connectRaw(build());
    await expect(
      fresh.client.request('tools/list', {
        _meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
      }),
    ).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('io.modelcontextprotocol/protocolVersion'),
    });
    await fresh.close();
    // Once the connection served a modern request, a request without _meta is malformed, not legacy.
    await open.modern('tools/list');
    await expect(open.client.request('tools/list', {})).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('io.modelcontextprotocol/protocolVersion'),
    });
  });

  test('-32021 when a tool needs a capability the request did not declare', async () => {
    open = connectRaw(build());
    await expect(open.modern('tools/call', { name: 'ask' })).rejects.toMatchObject({
      code: ErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });

  test('-32602 for an unknown resource (2026-07-28), -32601 for an unknown method', async () => {
    open = connectRaw(build());
    await expect(open.modern('resources/read', { uri: 'test://nope' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      data: { uri: 'test://nope' },
    });
    await expect(open.modern('unknown/method')).rejects.toMatchObject({ code: ErrorCode.MethodNotFound });
  });

  test.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])(
    'removed method %s answers -32601 to a modern request',
    async (method) => {
      open = connectRaw(build());
      const params = method.startsWith('resources/') ? { uri: 'test://readme' } : { level: 'info' };
      await expect(open.modern(method, params)).rejects.toMatchObject({ code: ErrorCode.MethodNotFound });
    },
  );
});

describe('logging', () => {
  test('only for a request that set logLevel, at or above it, related to that request', async () => {
    open = connectRaw(build());
    await open.modern('tools/call', { name: 'chatty' });
    expect(open.notifications).toEqual([]);
    await open.modern('tools/call', { name: 'chatty' }, { 'io.modelcontextprotocol/logLevel': 'info' });
    expect(open.notifications).toEqual([
      { method: 'notifications/message', params: { level: 'warning', data: 'warning line' } },
    ]);
  });

  test('server-wide log() does not reach a modern connection', async () => {
    const s = build();
    open = connectRaw(s);
    await open.modern('tools/list');
    await s.log('error', 'broadcast');
    // A request after the broadcast: anything the broadcast wrote would be read before its answer.
    await open.modern('tools/list');
    expect(open.notifications).toEqual([]);
  });
});

describe('cancellation and failure reports', () => {
  test('notifications/cancelled aborts a modern request at once; it is never answered', async () => {
    const s = build();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let reason: unknown;
    s.tool('wait', { description: 'Waits for a cancel' }, async (_a, ctx) => {
      started();
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      reason = ctx.signal.reason;
      return 'too late';
    });
    open = connectRaw(s);
    const abort = new AbortController();
    const call = open.client.request(
      'tools/call',
      { name: 'wait', _meta: meta() },
      { signal: abort.signal, timeoutMs: 5_000 },
    );
    const outcome = call.then(
      () => 'answered',
      () => 'rejected',
    );
    await running;
    abort.abort();
    expect(await outcome).toBe('rejected');
    // A request after the cancel: anything written for the cancelled one comes before its answer.
    await open.modern('tools/list');
    expect(reason).toBeInstanceOf(CancelledByPeerError);
    const answers = open.written.filter((m) => 'id' in m && ('result' in m || 'error' in m));
    expect(answers).toHaveLength(1); // the tools/list only
  });

  test('a missing capability in a resource reader is -32021 and not reported as a server failure', async () => {
    const failures: unknown[] = [];
    const s = build({ onerror: (error) => void failures.push(error) });
    s.resource('roots', 'test://roots', {}, async (_uri, ctx) => JSON.stringify(await ctx.listRoots()));
    open = connectRaw(s);
    await expect(open.modern('resources/read', { uri: 'test://roots' })).rejects.toMatchObject({
      code: ErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { roots: {} } },
    });
    expect(failures).toEqual([]);
  });
});
