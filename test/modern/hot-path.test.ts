/**
 * The 2026-07-28 hot path pays only for what a request uses (brief PF: a modern `echo` cost 2.5×
 * the bare server). A plain tool call reads no request headers (building a web `Headers` over HTTP),
 * makes no AbortController (the request's or its round's) and no random session id; each is still
 * made, with the same meaning, when a tool or handler asks for it.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { JsonObject } from '../../src/core/jsonrpc.js';
import type { MessageInfo } from '../../src/core/transport.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { useProcessGuard } from '../helpers/guard.js';
import { connectRaw, type Raw } from './harness.js';

useProcessGuard();

let raw: Raw | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  await raw?.close();
  raw = undefined;
});

const ANNOTATED = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
} as const;

/** A server with `echo` (no annotated argument) and `route` (one `x-mcp-header` argument). */
function serve(onEcho: (ctx: { session: { id: string } }) => void = () => undefined): McpServer {
  const server = new McpServer({ name: 'hot-path', version: '1' }, { onerror: undefined });
  server.tool(
    'echo',
    { description: 'x', input: { type: 'object', properties: { text: { type: 'string' } } } },
    (args, ctx) => {
      onEcho(ctx);
      return String((args as { text: unknown }).text);
    },
  );
  server.tool('route', { description: 'x', input: ANNOTATED }, () => 'routed');
  return server;
}

/** Transport facts whose `headers` count their reads (over HTTP each read may build them). */
function countingInfo(headers: Record<string, string>): { info: MessageInfo; reads: () => number } {
  let reads = 0;
  const info: MessageInfo = {
    get headers() {
      reads += 1;
      return new Headers(headers);
    },
  };
  return { info, reads: () => reads };
}

function text(result: JsonObject): unknown {
  return (result.content as { text: string }[])[0]?.text;
}

describe('request headers', () => {
  test('a modern call of a tool without x-mcp-header arguments never reads them', async () => {
    raw = connectRaw(serve());
    const { info, reads } = countingInfo({});
    raw.serverTransport.messageInfo = () => info;
    const result = await raw.modern('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(text(result)).toBe('hi');
    expect(reads()).toBe(0);
  });

  test('a tool with one reads them once and still refuses a disagreeing header', async () => {
    raw = connectRaw(serve());
    const agreeing = countingInfo({ 'mcp-param-region': 'us' });
    raw.serverTransport.messageInfo = () => agreeing.info;
    const result = await raw.modern('tools/call', { name: 'route', arguments: { region: 'us' } });
    expect(text(result)).toBe('routed');
    expect(agreeing.reads()).toBe(1);

    const disagreeing = countingInfo({ 'mcp-param-region': 'eu' });
    raw.serverTransport.messageInfo = () => disagreeing.info;
    await expect(
      raw.modern('tools/call', { name: 'route', arguments: { region: 'us' } }),
    ).rejects.toMatchObject({ code: -32020 });
    expect(disagreeing.reads()).toBe(1);
  });
});

describe('session id', () => {
  test('a modern call checking its Mcp-Param headers (it reads the version) makes no random id', async () => {
    raw = connectRaw(serve());
    raw.serverTransport.messageInfo = () => countingInfo({ 'mcp-param-region': 'us' }).info;
    const uuid = vi.spyOn(globalThis.crypto, 'randomUUID');
    const result = await raw.modern('tools/call', { name: 'route', arguments: { region: 'us' } });
    expect(text(result)).toBe('routed');
    expect(uuid).toHaveBeenCalledTimes(0);
  });

  test("the session id is made when a handler reads it, and is the connection's", async () => {
    const seen: string[] = [];
    raw = connectRaw(serve((ctx) => seen.push(ctx.session.id, ctx.session.id)));
    await raw.modern('tools/call', { name: 'echo', arguments: { text: 'a' } });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[0]).toBe(raw.session.id);
  });
});
