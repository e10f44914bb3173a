/**
 * Issue 9 item 17: handlers reach their session through `ctx.session` (id, client info and
 * capabilities, negotiated version, a per-session `state` Map that is the same object for every
 * request of the session), on every transport: memory, HTTP and stdio.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer, type HandlerSession } from 'keel-mcp/server';
import { RawServer, assertBuilt, useChildCleanup, endAndExpectCleanExit } from '../stdio/helpers.js';
import { post } from '../http-server/support/harness.js';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
useChildCleanup();
const open: Connected[] = [];
let serving: HttpServing | undefined;
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

interface Whoami {
  id: string;
  calls: number;
  client: string | null;
  capabilities: JsonObject;
  protocolVersion: string | null;
}

/** A server whose `whoami` tool counts calls in `ctx.session.state` and keeps each session seen. */
function whoamiServer(seen: HandlerSession[] = []): McpServer {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool('whoami', { description: 'Who am I' }, (_a, ctx) => {
    seen.push(ctx.session);
    const calls = ((ctx.session.state.get('calls') as number | undefined) ?? 0) + 1;
    ctx.session.state.set('calls', calls);
    return JSON.stringify({
      id: ctx.session.id,
      calls,
      client: ctx.session.clientInfo?.name ?? null,
      capabilities: ctx.session.clientCapabilities,
      protocolVersion: ctx.session.protocolVersion ?? null,
    });
  });
  return server;
}

/** The tool's answer: JSON in its text content. */
function parse(result: JsonObject): Whoami {
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Whoami;
}

async function whoami(c: Connected): Promise<Whoami> {
  const result = await c.client.request('tools/call', { name: 'whoami' });
  return parse(result);
}

describe('ctx.session over the memory transport', () => {
  test('one id, client facts and one state Map per session; another connection has its own', async () => {
    const seen: HandlerSession[] = [];
    const server = whoamiServer(seen);
    const a = await connect(server, { capabilities: { roots: {} } });
    open.push(a);
    const first = await whoami(a);
    const second = await whoami(a);
    expect(first).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      calls: 1,
      client: 'test-client',
      capabilities: { roots: {} },
      protocolVersion: '2025-11-25',
    });
    expect(second).toEqual({ ...first, calls: 2 });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]!.state).toBe(seen[1]!.state);
    expect(seen[0]!.id).toBe(a.session.id);

    const b = await connect(server);
    open.push(b);
    const other = await whoami(b);
    expect(other.id).not.toBe(first.id);
    expect(other.calls).toBe(1);
    expect(seen[2]!.state).not.toBe(seen[0]!.state);
  });

  test('low-level handlers get the same session and state as McpServer handlers', async () => {
    const seen: HandlerSession[] = [];
    const server = whoamiServer(seen);
    server.server.setRequestHandler('custom/calls', (_params, _ctx, session) => ({
      id: session.id,
      calls: session.state.get('calls') ?? 0,
    }));
    const c = await connect(server);
    open.push(c);
    await whoami(c);
    expect(await c.client.request('custom/calls', {})).toEqual({ id: seen[0]!.id, calls: 1 });
  });
});

describe('ctx.session on the wire', () => {
  test('HTTP: the id is the Mcp-Session-Id, and state lives across POSTs of that session only', async () => {
    serving = await serveHttp(whoamiServer(), { port: 0, keepAliveMs: 0 });
    const url = serving.url;
    const open = async (name: string): Promise<string> => {
      const init = await post(url, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: { sampling: {} },
          clientInfo: { name, version: '1' },
        },
      });
      const sessionId = init.headers.get('mcp-session-id')!;
      await init.text();
      await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId })).text();
      return sessionId;
    };
    const call = async (sessionId: string, id: number): Promise<Whoami> => {
      const response = await post(
        url,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami' } },
        { sessionId },
      );
      const body = (await response.json()) as { result: JsonObject };
      return parse(body.result);
    };
    const one = await open('first');
    const two = await open('second');
    expect(await call(one, 1)).toEqual({
      id: one,
      calls: 1,
      client: 'first',
      capabilities: { sampling: {} },
      protocolVersion: '2025-06-18',
    });
    expect(await call(one, 2)).toMatchObject({ id: one, calls: 2 });
    expect(await call(two, 3)).toMatchObject({ id: two, calls: 1, client: 'second' });
  });

  test('stdio: a generated id, stable with its state for the life of the process connection', async () => {
    assertBuilt();
    const server = new RawServer('test/server-api/fixtures/session-server.js');
    server.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await server.response(0);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } });
    const first = parse((await server.response(1)).result as JsonObject);
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } });
    const second = parse((await server.response(2)).result as JsonObject);
    expect(first).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      calls: 1,
      client: 'raw',
      capabilities: { elicitation: {} },
      protocolVersion: '2025-11-25',
    });
    expect(second).toEqual({ ...first, calls: 2 });
    await endAndExpectCleanExit(server);
  });
});
