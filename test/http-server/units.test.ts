/**
 * Unit checks of the small pieces: event store bounds, Host/Origin policy, Accept parsing, the
 * session table's recency order.
 */
import { describe, expect, test } from 'vitest';
import type { JsonRpcMessage } from 'keel-mcp/core';
import { RecencyList } from '../../src/hosts/http/recency-list.js';
import { isJsonContentType, parseAccept } from '../../src/transports/http/server-wire/request-checks.js';
import { HostOriginPolicy, InMemoryEventStore, LOOPBACK_HOSTS } from 'keel-mcp/http';

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { n },
});

function replay(
  store: InMemoryEventStore,
  after: string,
): { stream: string | undefined; ids: string[]; ns: unknown[] } {
  const ids: string[] = [];
  const ns: unknown[] = [];
  const stream = store.replayEventsAfter(after, (id, message) => {
    ids.push(id);
    ns.push((message as unknown as { params: { n: number } }).params.n);
  });
  return { stream, ids, ns };
}

describe('InMemoryEventStore', () => {
  test('replays only the stream of the given event, after it, skipping priming markers', () => {
    const store = new InMemoryEventStore();
    const priming = store.storeEvent('s:1', undefined);
    const a1 = store.storeEvent('s:1', note(1));
    store.storeEvent('s:2', note(99));
    store.storeEvent('s:1', note(2));
    expect(replay(store, priming)).toMatchObject({ stream: 's:1', ns: [1, 2] });
    expect(replay(store, a1)).toMatchObject({ stream: 's:1', ns: [2] });
    expect(new Set([priming, a1]).size).toBe(2);
  });

  test('unknown, malformed and future ids replay nothing', () => {
    const store = new InMemoryEventStore();
    store.storeEvent('s:1', note(1));
    expect(replay(store, 'nope').stream).toBeUndefined();
    expect(replay(store, 's:1_x').stream).toBeUndefined();
    expect(replay(store, 's:1_5').stream).toBeUndefined();
    expect(replay(store, 's:9_0').stream).toBeUndefined();
  });

  test('keeps at most maxEventsPerStream events and maxStreams streams', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 3, maxStreams: 2 });
    const first = store.storeEvent('a', undefined);
    for (let n = 1; n <= 5; n++) store.storeEvent('a', note(n));
    // The window holds 3..5; resuming from before it replays what is retained.
    expect(replay(store, first).ns).toEqual([3, 4, 5]);
    store.storeEvent('b', note(1));
    store.storeEvent('c', note(1));
    expect(store.streamCount).toBe(2);
    expect(replay(store, first).stream).toBeUndefined(); // 'a' was the oldest stream
  });

  test('forgetStream drops a stream', () => {
    const store = new InMemoryEventStore();
    const id = store.storeEvent('a', note(1));
    store.forgetStream('a');
    expect(store.streamCount).toBe(0);
    expect(replay(store, id).stream).toBeUndefined();
  });
});

describe('HostOriginPolicy', () => {
  const loopback = new HostOriginPolicy(LOOPBACK_HOSTS, LOOPBACK_HOSTS);

  test.each([
    ['localhost', true],
    ['localhost:3000', true],
    ['127.0.0.1:1', true],
    ['[::1]:8080', true],
    ['[::1]', true],
    ['LOCALHOST:80', true],
    ['evil.example.com', false],
    ['localhost.evil.com', false],
    ['127.0.0.1.nip.io:3000', false],
    ['[::2]:80', false],
  ])('Host %s → %s', (host, allowed) => {
    expect(loopback.hostAllowed(host)).toBe(allowed);
  });

  test.each([
    [null, true],
    ['http://localhost:5173', true],
    ['https://127.0.0.1', true],
    ['http://[::1]:3000', true],
    ['http://evil.example.com', false],
    ['null', false],
    ['file://', false],
    ['http://localhost.evil.com', false],
  ])('Origin %s → %s', (origin, allowed) => {
    expect(loopback.originAllowed(origin)).toBe(allowed);
  });

  test('explicit names: host with or without port, exact origins', () => {
    const policy = new HostOriginPolicy(
      ['mcp.example.com', 'api.example.com:8443'],
      ['https://app.example.com'],
    );
    expect(policy.hostAllowed('mcp.example.com:443')).toBe(true);
    expect(policy.hostAllowed('api.example.com:8443')).toBe(true);
    expect(policy.hostAllowed('api.example.com:9000')).toBe(false);
    expect(policy.hostAllowed(null)).toBe(false);
    expect(policy.originAllowed('https://app.example.com')).toBe(true);
    expect(policy.originAllowed('http://app.example.com')).toBe(false);
    expect(policy.originAllowed('https://app.example.com:8443')).toBe(false);
  });
});

describe('media types', () => {
  test.each([
    [null, { json: true, sse: true, jsonListed: false, sseListed: false }],
    ['application/json, text/event-stream', { json: true, sse: true, jsonListed: true, sseListed: true }],
    ['text/event-stream', { json: false, sse: true, jsonListed: false, sseListed: true }],
    ['*/*', { json: true, sse: true, jsonListed: false, sseListed: false }],
    [
      'application/json;q=0.9, text/event-stream;q=0',
      { json: true, sse: false, jsonListed: true, sseListed: false },
    ],
    ['text/html', { json: false, sse: false, jsonListed: false, sseListed: false }],
  ])('Accept %s', (header, expected) => {
    expect(parseAccept(header)).toEqual(expected);
  });

  test.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/jsonp', false],
    ['text/plain', false],
    [null, false],
  ])('Content-Type %s → %s', (header, expected) => {
    expect(isJsonContentType(header)).toBe(expected);
  });
});

describe('RecencyList', () => {
  interface Entry {
    name: string;
    newer: Entry | undefined;
    older: Entry | undefined;
  }
  const entry = (name: string): Entry => ({ name, newer: undefined, older: undefined });
  const order = (list: RecencyList<Entry>): string[] => {
    const names: string[] = [];
    for (let e = list.oldest; e; e = e.newer) names.push(e.name);
    return names;
  };

  test('touch moves an entry to the recent end; remove takes it out; both are idempotent', () => {
    const list = new RecencyList<Entry>();
    const [a, b, c] = [entry('a'), entry('b'), entry('c')];
    list.touch(a);
    list.touch(b);
    list.touch(c);
    list.touch(a);
    expect(order(list)).toEqual(['b', 'c', 'a']);
    list.touch(a);
    expect(order(list)).toEqual(['b', 'c', 'a']);
    list.remove(c);
    list.remove(c);
    expect(order(list)).toEqual(['b', 'a']);
    list.remove(b);
    expect([list.oldest?.name, list.newest?.name]).toEqual(['a', 'a']);
    list.remove(a);
    expect([list.oldest, list.newest]).toEqual([undefined, undefined]);
    list.touch(b);
    expect(order(list)).toEqual(['b']);
  });
});
