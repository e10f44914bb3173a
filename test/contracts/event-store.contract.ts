/**
 * The contract every {@link EventStore} keeps, as one suite run against each implementation
 * (event-store.memory.test.ts, event-store.redis.test.ts): call `eventStoreContract(name, factory)`
 * inside a test file that also calls `useProcessGuard()`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type JsonRpcMessage } from 'keel-mcp/core';
import { StreamEvictedError, type EventStore } from 'keel-mcp/http';
import { within } from '../helpers/guard.js';

/** Bounds a test asks for; each factory maps them onto its own options. */
export interface ContractBounds {
  maxEventsPerStream?: number;
  /** The byte bound, as it applies to a single stream. */
  maxBytes?: number;
  maxAgeMs?: number;
  /** Memory only needs it to make room-based eviction happen; others may ignore it. */
  maxStreams?: number;
}

export interface EventStoreHarness {
  store: EventStore;
  /** Make the store lose the live stream the way it really can (memory: room; Redis: the key evicted). */
  loseLiveStream: (streamId: string) => Promise<void>;
  /** Let `ms` pass on the store's clock (a fake clock, or real time for a server clock). */
  advance: (ms: number) => Promise<void>;
  /** Every key the store holds in its backend with its TTL in ms (-1 = none): stores with keys only. */
  keyTtls?: () => Promise<Map<string, number>>;
  /** Stop and start the backend: stores with one only. `start` resolves once the client is ready. */
  backend?: { stop: () => Promise<void>; start: () => Promise<void> };
  close: () => Promise<void>;
}

export interface ContractOptions {
  /** The store keeps keys with TTLs in a backend (runs the TTL case). */
  keys?: boolean;
  /** The store has a backend that can go down (runs the restart case). */
  backend?: boolean;
}

const note = (i: number, stream = 'x'): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: `${stream}-${i}` },
});

/** Store through the interface, sync or async alike (a sync throw becomes a rejection). */
const put = (store: EventStore, streamId: string, message: JsonRpcMessage | undefined): Promise<string> =>
  Promise.resolve().then(() => store.storeEvent(streamId, message, message && JSON.stringify(message)));

async function replay(store: EventStore, after: string) {
  const events: [string, JsonRpcMessage][] = [];
  const stream = await store.replayEventsAfter(after, (id, message) => events.push([id, message]));
  return { stream, ids: events.map(([id]) => id), messages: events.map(([, message]) => message) };
}

export function eventStoreContract(
  name: string,
  factory: (bounds: ContractBounds) => Promise<EventStoreHarness>,
  options: ContractOptions = {},
): void {
  describe(`EventStore contract: ${name}`, () => {
    const open: EventStoreHarness[] = [];
    const make = async (bounds: ContractBounds = {}) => {
      const harness = await factory(bounds);
      open.push(harness);
      return harness;
    };
    afterEach(async () => {
      for (const harness of open.splice(0)) await harness.close();
    });

    it('replays every message after an id, in order, skipping the priming marker', async () => {
      const { store } = await make();
      const priming = await put(store, 's:1', undefined);
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await put(store, 's:1', note(i)));
      expect(new Set([priming, ...ids]).size).toBe(6);
      const all = await replay(store, priming);
      expect(all.stream).toBe('s:1');
      expect(all.ids).toEqual(ids);
      expect(all.messages).toEqual([0, 1, 2, 3, 4].map((i) => note(i)));
      const tail = await replay(store, ids[2]!);
      expect(tail.ids).toEqual(ids.slice(3));
    });

    it('after the last id: the stream, and nothing to replay', async () => {
      const { store } = await make();
      await put(store, 's:1', undefined);
      const last = await put(store, 's:1', note(1));
      expect(await replay(store, last)).toEqual({ stream: 's:1', ids: [], messages: [] });
    });

    it('an unknown or malformed id replays nothing and returns undefined', async () => {
      const { store } = await make();
      const id = await put(store, 's:1', note(1));
      const suffix = id.slice('s:1'.length); // the store's own "_<position>" part
      for (const unknown of ['', 'nope', '_1', `${id}x`, `other:9${suffix}`, `s:1_`, `s:1_abc`]) {
        expect(await replay(store, unknown), unknown).toEqual({ stream: undefined, ids: [], messages: [] });
      }
    });

    it('two streams are independent; ids are unique across streams; forgetting one keeps the other', async () => {
      const { store } = await make();
      const a: string[] = [];
      const b: string[] = [];
      a.push(await put(store, 'a:1', undefined));
      b.push(await put(store, 'b:1', undefined));
      for (let i = 0; i < 3; i++) {
        a.push(await put(store, 'a:1', note(i, 'a')));
        b.push(await put(store, 'b:1', note(i, 'b')));
      }
      expect(new Set([...a, ...b]).size).toBe(8);
      expect(await replay(store, a[0]!)).toMatchObject({ stream: 'a:1', ids: a.slice(1) });
      const fromB = await replay(store, b[0]!);
      expect(fromB).toMatchObject({ stream: 'b:1', ids: b.slice(1) });
      expect(fromB.messages).toEqual([0, 1, 2].map((i) => note(i, 'b')));
      await store.forgetStream?.('a:1');
      expect((await replay(store, a[0]!)).stream).toBeUndefined();
      expect((await replay(store, b[0]!)).ids).toEqual(b.slice(1));
    });

    it('keeps at most maxEventsPerStream events, dropping the oldest', async () => {
      const { store } = await make({ maxEventsPerStream: 3 });
      const first = await put(store, 's:1', undefined);
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await put(store, 's:1', note(i)));
      const after = await replay(store, first);
      expect(after.ids).toEqual(ids.slice(2));
      expect(after.messages).toEqual([2, 3, 4].map((i) => note(i)));
    });

    it('keeps a stream within its byte bound (32 per event + its JSON), always keeping the newest', async () => {
      const size = JSON.stringify(note(0)).length;
      const { store } = await make({ maxBytes: 3 * (32 + size) });
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await put(store, 's:1', note(i)));
      expect((await replay(store, ids[0]!)).ids).toEqual(ids.slice(2));
      const big: JsonRpcMessage = { jsonrpc: '2.0', method: 'big', params: { p: 'x'.repeat(10 * size) } };
      const bigId = await put(store, 's:1', big);
      expect(await replay(store, ids[0]!)).toMatchObject({ ids: [bigId], messages: [big] });
    });

    it('drops events older than maxAgeMs (keeping the newest), and a finished stream once it is that old', async () => {
      const { store, advance } = await make({ maxAgeMs: 100 });
      const priming = await put(store, 's:1', undefined);
      await put(store, 's:1', note(1));
      await advance(150);
      const fresh = await put(store, 's:1', note(2));
      expect((await replay(store, priming)).ids).toEqual([fresh]);
      await store.finishStream?.('s:1');
      expect((await replay(store, priming)).stream).toBe('s:1');
      await advance(150);
      expect((await replay(store, priming)).stream).toBeUndefined();
    });

    it('a lost live stream is refused with StreamEvictedError until it is forgotten', async () => {
      const { store, loseLiveStream } = await make({ maxStreams: 1 });
      const id = await put(store, 'gone:1', note(1));
      await loseLiveStream('gone:1');
      const refused = await put(store, 'gone:1', note(2)).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StreamEvictedError);
      expect((refused as StreamEvictedError).streamId).toBe('gone:1');
      expect((await replay(store, id)).stream).toBeUndefined();
      await store.forgetStream?.('gone:1');
      const again = await put(store, 'gone:1', note(3));
      expect((await replay(store, again)).stream).toBe('gone:1');
    });

    if (options.keys)
      it('every key the store leaves has a TTL', async () => {
        const { store, keyTtls } = await make({ maxAgeMs: 60_000 });
        for (const stream of ['live:1', 'done:1', 'forgotten:1']) {
          await put(store, stream, undefined);
          await put(store, stream, note(1, stream));
        }
        await store.finishStream?.('done:1');
        await store.forgetStream?.('forgotten:1');
        const ttls = await keyTtls!();
        expect(ttls.size).toBeGreaterThanOrEqual(2);
        for (const [key, ttl] of ttls) expect(ttl, key).toBeGreaterThan(0);
        // The finished stream now lives no longer than its age bound.
        const done = [...ttls].filter(([key]) => key.includes('{done:1}'));
        expect(done.length).toBeGreaterThan(0);
        for (const [key, ttl] of done) expect(ttl, key).toBeLessThanOrEqual(60_000);
        expect([...ttls.keys()].some((key) => key.includes('forgotten'))).toBe(false);
      });

    if (options.backend)
      it('backend down: a typed error, no hang; back up: the store works again', async () => {
        const { store, backend } = await make();
        const before = await put(store, 's:1', note(1));
        await backend!.stop();
        const failedPut = await within(put(store, 's:1', note(2)), 10_000, 'storeEvent while down').catch(
          (error: unknown) => error,
        );
        expect(failedPut).toBeInstanceOf(StoreUnavailableError);
        const failedReplay = await within(replay(store, before), 10_000, 'replay while down').catch(
          (error: unknown) => error,
        );
        expect(failedReplay).toBeInstanceOf(StoreUnavailableError);
        await backend!.start();
        const first = await put(store, 's:2', undefined);
        const next = await put(store, 's:2', note(3));
        expect(await replay(store, first)).toMatchObject({ stream: 's:2', ids: [next] });
      });
  });
}
