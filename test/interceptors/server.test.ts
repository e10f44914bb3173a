/**
 * Issue 26 part 1: server interceptors (`McpServer.use`). What an interceptor sees, the onion
 * order, short-circuits, typed errors, transformed results and params, notifications; in both eras
 * over the memory transport (as stdio) and over Streamable HTTP; tasks included.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { ErrorCode, McpError, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { McpServer, type ServerCall, type ServerInterceptor } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const INFO = { name: 'interceptors', version: '1.0.0' };
const ERAS = ['legacy', 'modern'] as const;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

function newServer(failures: unknown[] = []): McpServer {
  const server = new McpServer(INFO, { onerror: (error) => void failures.push(error) });
  server.tool('echo', { description: 'echoes', input: { type: 'object' } }, (args) => JSON.stringify(args));
  server.resource('note', 'note://a', { description: 'a note' }, () => 'hello');
  return server;
}

async function connect(server: McpServer, era: 'legacy' | 'modern'): Promise<McpClient> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = await McpClient.connect(clientSide, { era });
  open.push({
    close: async () => {
      await client.close();
      await within(session.closed, 5_000, 'session.closed');
    },
  });
  return client;
}

const textOf = (result: JsonObject): string => ((result.content as JsonObject[])[0]!.text as string) ?? '';

describe.each(ERAS)('%s era', (era) => {
  test('interceptors run onion-style in registration order, around the handler', async () => {
    const server = newServer();
    const order: string[] = [];
    const tracer =
      (name: string): ServerInterceptor =>
      async (call, next) => {
        if (call.method !== 'tools/call') return next();
        order.push(`${name} in`);
        const result = await next();
        order.push(`${name} out`);
        return result;
      };
    server.use(tracer('a')).use(tracer('b')).use(tracer('c'));
    server.tool('order', { description: 'records' }, () => {
      order.push('handler');
      return 'ok';
    });
    const client = await connect(server, era);
    await client.callTool('order', {});
    expect(order).toEqual(['a in', 'b in', 'c in', 'handler', 'c out', 'b out', 'a out']);
  });

  test('the call names the method, params, id, era, version and session', async () => {
    const server = newServer();
    const seen: ServerCall[] = [];
    server.use((call, next) => {
      seen.push(call);
      return next();
    });
    const client = await connect(server, era);
    await client.callTool('echo', { x: 1 });
    const call = seen.find((c) => c.method === 'tools/call')!;
    expect(call.kind).toBe('request');
    expect(call.params.name).toBe('echo');
    expect(call.params.arguments).toEqual({ x: 1 });
    expect(call.id).toBeDefined();
    expect(call.era).toBe(era);
    expect(call.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    expect(call.session).toBe([...server.sessions][0]);
    expect(call.auth).toBeUndefined();
    expect(call.signal?.aborted).toBe(false);
    // Every request passes, the handshake included (legacy: initialize; modern: server/discover).
    expect(seen.map((c) => c.method)).toContain(era === 'legacy' ? 'initialize' : 'server/discover');
  });

  test('a short-circuit answers without running the handler', async () => {
    const server = newServer();
    let ran = 0;
    server.tool('counted', { description: 'counts' }, () => {
      ran++;
      return 'ran';
    });
    server.use((call, next) =>
      call.method === 'tools/call' && call.params.name === 'counted'
        ? { content: [{ type: 'text', text: 'from the interceptor' }] }
        : next(),
    );
    const client = await connect(server, era);
    const result = await client.callTool('counted', {});
    expect(textOf(result)).toBe('from the interceptor');
    expect(ran).toBe(0);
  });

  test('a typed error from an interceptor is the answer, with its code and data; not reported as a failure', async () => {
    const failures: unknown[] = [];
    const server = newServer(failures);
    server.use((call, next) => {
      if (call.method === 'tools/call')
        throw new McpError(ErrorCode.InvalidRequest, 'not allowed', { why: 'policy' });
      return next();
    });
    const client = await connect(server, era);
    const error = await client.callTool('echo', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidRequest);
    expect((error as McpError).message).toContain('not allowed');
    expect((error as McpError).data).toEqual({ why: 'policy' });
    expect(failures).toEqual([]);
  });

  test('a plain Error thrown by an interceptor answers -32603 and reaches onerror once', async () => {
    const failures: unknown[] = [];
    const server = newServer(failures);
    const bug = new Error('interceptor bug');
    server.use((call, next) => {
      if (call.method === 'tools/call') throw bug;
      return next();
    });
    const client = await connect(server, era);
    const error = (await client.callTool('echo', {}).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(failures).toEqual([bug]);
  });

  test('an interceptor transforms the result and replaces the params', async () => {
    const server = newServer();
    server.use(async (call, next) => {
      if (call.method !== 'tools/call') return next();
      const result = await next({ ...call.params, arguments: { replaced: true } });
      return { ...result, _meta: { stamped: 'yes' } };
    });
    const client = await connect(server, era);
    const result = await client.callTool('echo', { original: true });
    expect(JSON.parse(textOf(result))).toEqual({ replaced: true });
    expect(result._meta).toMatchObject({ stamped: 'yes' });
  });

  test('an error of the handler passes through the chain unchanged and an interceptor observes it', async () => {
    const server = newServer();
    const observed: unknown[] = [];
    server.use(async (call, next) => {
      try {
        return await next();
      } catch (error) {
        observed.push(error);
        throw error;
      }
    });
    const client = await connect(server, era);
    const error = (await client.readResource('note://missing').catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(observed).toHaveLength(1);
    expect((observed[0] as McpError).code).toBe(error.code);
  });

  test('next() rejects (never throws) when the era refuses at once: an unknown method', async () => {
    const server = newServer();
    const seen: unknown[] = [];
    // Not async: a synchronous throw out of next() would skip the .then and escape the chain.
    server.use((call, next) =>
      next().then(undefined, (error: unknown) => {
        if (call.method === 'x/unknown') seen.push(error);
        throw error;
      }),
    );
    const client = await connect(server, era);
    const error = (await client.request('x/unknown', {}).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect(seen).toEqual([expect.objectContaining({ code: ErrorCode.MethodNotFound })]);
  });

  test('next() twice rejects and the handler runs once', async () => {
    const server = newServer();
    let ran = 0;
    server.tool('once', { description: 'runs once' }, () => {
      ran++;
      return 'once';
    });
    const second: unknown[] = [];
    server.use(async (call, next) => {
      const result = await next();
      if (call.method === 'tools/call') second.push(await next().catch((e: unknown) => e));
      return result;
    });
    const client = await connect(server, era);
    expect(textOf(await client.callTool('once', {}))).toBe('once');
    expect(ran).toBe(1);
    expect(second).toHaveLength(1);
    expect((second[0] as McpError).message).toMatch(/next\(\) twice/);
  });

  test('tool calls that become tasks, and the task requests, pass through the chain', async () => {
    const server = new McpServer(INFO, { tasks: { pollIntervalMs: 20 }, onerror: undefined });
    open.push({ close: () => server.close() });
    server.tool('slow', { description: 'a task', execution: { taskSupport: 'required' } }, () => 'done');
    const methods: string[] = [];
    server.use((call, next) => {
      methods.push(call.method);
      return next();
    });
    const client = await connect(server, era);
    const result = await client.callTool('slow', {});
    expect(textOf(result)).toBe('done');
    expect(methods).toContain('tools/call');
    expect(methods.some((m) => m === 'tasks/get' || m === 'tasks/result')).toBe(true);
  });
});

test('legacy notifications pass through the chain; not calling next() drops them', async () => {
  const server = newServer();
  const notifications: string[] = [];
  let rootsChanged = 0;
  server.server.setNotificationHandler('notifications/roots/list_changed', () => {
    rootsChanged++;
  });
  server.use((call, next) => {
    if (call.kind === 'notification') {
      notifications.push(call.method);
      expect(call.id).toBeUndefined();
      expect(call.signal).toBeUndefined();
      if (call.method === 'notifications/roots/list_changed' && rootsChanged > 0) return {};
    }
    return next();
  });
  const client = await connect(server, 'legacy');
  await client.lowLevel.notify('notifications/roots/list_changed');
  await client.lowLevel.notify('notifications/roots/list_changed');
  // A request after the notifications: the memory transport delivers in order.
  await client.ping();
  expect(notifications).toEqual([
    'notifications/initialized',
    'notifications/roots/list_changed',
    'notifications/roots/list_changed',
  ]);
  expect(rootsChanged).toBe(1);
  const session = [...server.sessions][0]!;
  // `initialized` still marked the session (next() ran for it).
  expect(session.initialized).toBe(true);
});

test('no interceptor registered: the request path returns the era result directly (no promise for a sync handler)', async () => {
  const server = newServer();
  const session = server.server.connect(createMemoryPair()[1]);
  open.push({ close: () => session.connection.close() });
  // The low-level entry is synchronous for `ping` when nothing is registered; a promise once one is.
  const ctx = { method: 'ping', meta: undefined, info: undefined } as never;
  expect(server.server.enter(session, {}, ctx)).toEqual({});
  server.use((_call, next) => next());
  expect(server.server.enter(session, {}, ctx)).toBeInstanceOf(Promise);
});

describe('over Streamable HTTP', () => {
  let serving: HttpServing | undefined;
  afterEach(async () => {
    await serving?.close({ deadlineMs: 2_000 });
    serving = undefined;
  });

  test.each(ERAS)('%s era: the interceptor sees the HTTP headers and the same call shape', async (era) => {
    const server = newServer();
    const seen: { method: string; era: string; agent: string | null | undefined }[] = [];
    server.use((call, next) => {
      seen.push({ method: call.method, era: call.era, agent: call.info?.headers?.get('x-test-agent') });
      return next();
    });
    serving = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });
    const transport = new StreamableHttpClientTransport(new URL(serving.url), {
      requestInit: { headers: { 'x-test-agent': 'vitest' } },
    });
    const client = await McpClient.connect(transport, { era });
    open.push({ close: () => client.close() });
    expect(JSON.parse(textOf(await client.callTool('echo', { via: 'http' })))).toEqual({ via: 'http' });
    const call = seen.find((c) => c.method === 'tools/call')!;
    expect(call).toEqual({ method: 'tools/call', era, agent: 'vitest' });
  });
});
