/**
 * The 2026-07-28 hot path pays only for what a request uses (brief PF: a modern `echo` cost 2.5×
 * the bare server). A plain tool call reads no request headers (building a web `Headers` over HTTP),
 * makes no AbortController (the request's or its round's) and no random session id; each is still
 * made, with the same meaning, when a tool or handler asks for it.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { InflightRequest, type AbortWatcher } from '../../src/core/engine/inbound.js';
import type { JsonObject, MessageInfo } from 'keel-mcp/core';
import { shallowCopy } from '../../src/core/shallow-copy.js';
import { McpServer, InputRequiredSignal } from 'keel-mcp/server';
import type { AbortSource } from '../../src/server/modern/input-round-types.js';
import { runWithRounds } from '../../src/server/modern/input-rounds.js';
import { modernResult } from '../../src/server/era/modern-era.js';
import { RequestStateCodec } from '../../src/server/modern/request-state.js';
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

describe("a round's abort without signals", () => {
  test('a modern echo makes no AbortController', async () => {
    raw = connectRaw(serve());
    // Warm: the client's first request and the server's lazy set-up are not counted.
    await raw.modern('tools/call', { name: 'echo', arguments: { text: 'warm' } });
    const Real = globalThis.AbortController;
    let made = 0;
    vi.stubGlobal(
      'AbortController',
      class extends Real {
        constructor() {
          super();
          made += 1;
        }
      },
    );
    const result = await raw.modern('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(text(result)).toBe('hi');
    expect(made).toBe(0);
  });

  const codec = new RequestStateCodec({ keys: ['k'.repeat(32)] });
  const TOOL = { name: 't', arguments: {} };

  /** The request's in-flight entry, as the server's RequestContext hands it over. */
  function source(entry: InflightRequest): AbortSource {
    return { watchAbort: (w) => entry.watch(w), unwatchAbort: (w) => entry.unwatch(w) };
  }

  test('the request aborting while a round is collected rejects the run and the pending call', async () => {
    const entry = new InflightRequest(1, 'tools/call', undefined);
    const reason = new Error('peer cancelled');
    let pendingError: unknown;
    const run = runWithRounds(
      { method: 'tools/call', params: TOOL, abortSource: source(entry) },
      { codec },
      async (channel) => {
        const pending = channel.request('roots/list', {});
        entry.abort(reason);
        pendingError = await pending.catch((e: unknown) => e);
        return 'after abort';
      },
    );
    await expect(run).rejects.toBe(reason);
    expect(pendingError).toBe(reason);
  });

  test('a request aborted before the run: the handler never runs', async () => {
    const entry = new InflightRequest(1, 'tools/call', undefined);
    const reason = new Error('gone');
    entry.abort(reason);
    let ran = 0;
    const run = runWithRounds(
      { method: 'tools/call', params: TOOL, abortSource: source(entry) },
      { codec },
      () => (ran += 1),
    );
    await expect(run).rejects.toBe(reason);
    expect(ran).toBe(0);
  });

  /**
   * Issue 30 item 1: told through behaviour, not the entry's private fields (which moved from a Set
   * to a single slot once, leaving a check of the Set that could never fail). Once the run is
   * decided, aborting the request must not reach the run's watcher; a watcher still registered
   * would keep the decided run (and its handler's closure) alive as long as the request.
   */
  test.each([
    ['the only watcher', 0],
    ['one of several watchers (a nested request watches too)', 1],
  ])('a decided run stops watching its request (%s)', async (_what, others) => {
    const entry = new InflightRequest(1, 'tools/call', undefined);
    const nested = Array.from({ length: others }, () => ({ parentAborted: vi.fn() }));
    for (const watcher of nested) entry.watch(watcher);
    let watched: AbortWatcher | undefined;
    const abortSource: AbortSource = {
      watchAbort: (watcher) => {
        watched = watcher;
        entry.watch(watcher);
      },
      unwatchAbort: (watcher) => entry.unwatch(watcher),
    };
    const outcome = await runWithRounds(
      { method: 'tools/call', params: TOOL, abortSource },
      { codec },
      () => 'done',
    );
    expect(outcome).toEqual({ type: 'complete', value: 'done' });
    expect(watched).toBeDefined();
    const told = vi.spyOn(watched!, 'parentAborted');
    const reason = new Error('closed after the answer');
    entry.abort(reason);
    expect(told).not.toHaveBeenCalled();
    // The other watchers are still told: the abort itself reached the entry's watchers.
    for (const watcher of nested) expect(watcher.parentAborted).toHaveBeenCalledExactlyOnceWith(reason);
  });

  test('a round signal first read after the round was decided is already aborted, with its reason', async () => {
    let late: (() => AbortSignal) | undefined;
    const outcome = await runWithRounds({ method: 'tools/call', params: TOOL }, { codec }, (channel) => {
      late = () => channel.signal;
      return channel.request('roots/list', {});
    });
    expect(outcome.type).toBe('input_required');
    const signal = late?.();
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(InputRequiredSignal);
  });
});

describe('shallow copies on the answer path', () => {
  test('shallowCopy copies own enumerable properties into a new plain object', () => {
    const source = { a: 1, nested: { b: 2 } };
    Object.defineProperty(source, 'hidden', { value: 3, enumerable: false });
    const copy = shallowCopy(source);
    expect(copy).not.toBe(source);
    expect(copy).toEqual({ a: 1, nested: { b: 2 } });
    expect(copy.nested).toBe(source.nested);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  test('an own __proto__ key (as JSON.parse makes) stays a plain key, the prototype untouched', () => {
    const source = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as JsonObject;
    const copy = shallowCopy(source);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"x":1}');
  });

  test('modernResult copies, keeps key order, and adds resultType and serverInfo', () => {
    const server = new McpServer({ name: 'hot-path', version: '1' }).server;
    const result = JSON.parse('{"__proto__":{"p":1},"content":[],"resultType":"complete"}') as JsonObject;
    const shaped = modernResult(server, 'tools/call', {}, result);
    expect(shaped).not.toBe(result);
    expect(result._meta).toBeUndefined();
    expect(JSON.stringify(shaped)).toBe(
      '{"__proto__":{"p":1},"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hot-path","version":"1"}}}',
    );
  });
});
