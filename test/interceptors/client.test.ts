/**
 * Issue 26 part 1: client interceptors (`McpClient.use`, `Client.use`) around every outbound
 * request, in both eras: order, what the call carries, params and options replaced, retries (each
 * `next()` is a new request on the wire), short-circuits (nothing sent), and the caller's abort.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { McpClient, type ClientCall, type ClientInterceptor } from 'keel-mcp/client';
import { ConnectionClosedError, ErrorCode, McpError, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

interface Rig {
  client: McpClient;
  server: McpServer;
  /** Every request the server received: method and params. */
  received: { method: string; params: JsonObject }[];
}

async function rig(era: 'legacy' | 'modern', interceptors: ClientInterceptor[] = []): Promise<Rig> {
  const server = new McpServer({ name: 'client-interceptors', version: '1' }, { onerror: undefined });
  server.tool('echo', { description: 'echoes', input: { type: 'object' } }, (args) => JSON.stringify(args));
  server.tool(
    'hold',
    { description: 'waits for its abort' },
    (_args, ctx) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
      ),
  );
  const received: Rig['received'] = [];
  let busy = 0;
  server.use((call, next) => {
    if (call.kind === 'request') received.push({ method: call.method, params: call.params });
    // `flaky` is refused as busy twice, then served (a server-side interceptor plays the load).
    if (call.method === 'tools/call' && call.params.name === 'flaky' && ++busy <= 2)
      throw new McpError(ErrorCode.ServerBusy, 'busy');
    return next();
  });
  server.tool('flaky', { description: 'ok once the server is not busy' }, () => 'ok');
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new McpClient({ name: 'c', version: '1' }, { era });
  for (const interceptor of interceptors) client.use(interceptor);
  await client.connect(clientSide);
  open.push(async () => {
    await client.close();
    await within(session.closed, 5_000, 'session.closed');
  });
  return { client, server, received };
}

const textOf = (result: JsonObject): string => (result.content as JsonObject[])[0]!.text as string;

describe.each(['legacy', 'modern'] as const)('%s era', (era) => {
  test('interceptors run in registration order, outermost first; the handshake is not intercepted', async () => {
    const order: string[] = [];
    const calls: ClientCall[] = [];
    const named =
      (name: string): ClientInterceptor =>
      async (call, next) => {
        calls.push(call);
        order.push(`${name} ${call.method}`);
        const result = await next();
        order.push(`${name} done`);
        return result;
      };
    const { client } = await rig(era, [named('a'), named('b')]);
    expect(order).toEqual([]);
    await client.callTool('echo', {});
    expect(order).toEqual(['a tools/call', 'b tools/call', 'b done', 'a done']);
    expect(calls[0]!.era).toBe(era);
    expect(calls[0]!.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    expect(calls[0]!.params).toMatchObject({ name: 'echo' });
  });

  test('next(params) replaces the params on the wire; _meta added by an interceptor arrives next to the protocol keys', async () => {
    const { client, received } = await rig(era, [
      (call, next) =>
        next({
          ...call.params,
          _meta: { ...(call.params?._meta as JsonObject | undefined), tenant: 'acme' },
        }),
    ]);
    await client.callTool('echo', { a: 1 });
    const call = received.find((r) => r.method === 'tools/call')!;
    const meta = call.params._meta as JsonObject;
    expect(meta.tenant).toBe('acme');
    if (era === 'modern') expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(call.params.arguments).toEqual({ a: 1 });
  });

  test('a retry interceptor sends a new request per next() and returns the last answer', async () => {
    const retry: ClientInterceptor = async (_call, next) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await next();
        } catch (error) {
          if (attempt === 3 || !(error instanceof McpError) || error.code !== ErrorCode.ServerBusy)
            throw error;
        }
      }
    };
    const { client, received } = await rig(era, [retry]);
    expect(textOf(await client.callTool('flaky', {}))).toBe('ok');
    expect(received.filter((r) => r.method === 'tools/call')).toHaveLength(3);
  });

  test('a short-circuit sends nothing', async () => {
    const { client, received } = await rig(era, [
      (call, next) => (call.method === 'tools/list' ? { tools: [] } : next()),
    ]);
    const before = received.length;
    expect(await client.listTools()).toEqual({ tools: [] });
    expect(received.length).toBe(before);
  });

  test('an error of the server reaches the interceptor and the caller unchanged', async () => {
    const seen: unknown[] = [];
    const { client } = await rig(era, [
      async (_call, next) => {
        try {
          return await next();
        } catch (error) {
          seen.push(error);
          throw error;
        }
      },
    ]);
    const error = await client.readResource('note://missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(seen).toEqual([error]);
  });

  test("the caller's abort reaches the server through the chain, and an interceptor's options replace the caller's", async () => {
    let seenSignal: AbortSignal | undefined;
    const { client } = await rig(era, [
      (call, next) => {
        seenSignal = call.options?.signal;
        return next(call.params, { ...call.options, timeoutMs: 60_000 });
      },
    ]);
    const controller = new AbortController();
    const pending = client.callTool('hold', {}, { signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await expect(pending).rejects.toThrow();
    expect(seenSignal).toBe(controller.signal);
  });

  test('a retry after close rejects with ConnectionClosedError, not a hang', async () => {
    let again: Promise<unknown> | undefined;
    const { client } = await rig(era, [
      async (call, next) => {
        const result = await next();
        if (call.method === 'tools/call') {
          await client.close();
          again = next().then(
            () => 'resolved',
            (e: unknown) => e,
          );
        }
        return result;
      },
    ]);
    await client.callTool('echo', {}).catch(() => undefined);
    const outcome = await within(again!, 5_000, 'retry after close');
    expect(outcome).toBeInstanceOf(Error);
    expect(
      outcome instanceof ConnectionClosedError ||
        (outcome as Error).name.includes('NotConnected') ||
        outcome instanceof McpError,
    ).toBe(true);
  });
});
