/**
 * Issue 26 quotas, lifecycle: a concurrency slot is held from the start of a request until it
 * ends for any reason and is released exactly once: on result, error, cancel, disconnect, and
 * when the handler ignores its signal and finishes late. A held slot is renewed while its call
 * runs (one interval, gone when nothing is held). No unhandledRejection, no timer left behind.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ErrorCode, McpError } from 'keel-mcp/core';
import { InMemoryQuotaStore, quotas } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  connectClient,
  fixtureServer,
  gate,
  RecordingStore,
  settle,
  type Era,
  type Fixture,
} from './support.js';

useProcessGuard();

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of open.splice(0).reverse()) await close();
});

/** Poll (bounded) until `done()` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  await within(
    (async () => {
      while (!done()) await settle(1);
    })(),
    5_000,
    what,
  );
}

/** What the in-memory store holds (private tables). */
function slotsHeld(store: InMemoryQuotaStore): number {
  const inside = store as unknown as { slots: Map<string, Map<string, number>> };
  let count = 0;
  for (const held of inside.slots.values()) count += held.size;
  return count;
}

async function setup(): Promise<{ fixture: Fixture; store: RecordingStore; inner: InMemoryQuotaStore }> {
  const fixture = fixtureServer();
  const inner = new InMemoryQuotaStore();
  const store = new RecordingStore(inner);
  fixture.server.use(quotas({ store, limits: { concurrent: 1 } }));
  return { fixture, store, inner };
}

describe.each<Era>(['legacy', 'modern'])('issue 26 quotas lifecycle (%s era)', (era) => {
  test('the answer leaves only once the slot is free: a client that calls again on the answer is admitted', async () => {
    const { fixture, store } = await setup();
    const { client, close } = await connectClient(fixture.server, era);
    open.push(close);
    const slow = gate();
    store.releaseStall = slow.promise;
    let answered = false;
    const first = client.callTool('quick', {}).then((result) => {
      answered = true;
      return result;
    });
    await until(() => store.releases.length === 1, 'the release started');
    await settle();
    expect(answered).toBe(false);
    slow.open();
    await within(first, 5_000, 'first answer');
    store.releaseStall = undefined;
    const second = await within(client.callTool('quick', {}), 5_000, 'second call');
    expect(second.isError).toBeFalsy();
    expect(fixture.runs.get('quick')).toBe(2);
  });

  test('a cancelled call frees its slot at the cancel, although its handler ignores the signal; its late end releases nothing more', async () => {
    const { fixture, store, inner } = await setup();
    const { client, close } = await connectClient(fixture.server, era);
    open.push(close);
    const abort = new AbortController();
    const call = client.callTool('gated', {}, { signal: abort.signal }).catch((e: unknown) => e);
    await until(() => fixture.gates.length === 1, 'gated call started');
    expect(slotsHeld(inner)).toBe(1);
    abort.abort();
    await call;
    await until(() => store.releases.length === 1, 'slot released on cancel');
    expect(slotsHeld(inner)).toBe(0);
    // The handler still runs (it ignores its signal), yet the caller has its slot back.
    expect((await client.callTool('quick')).content).toEqual([{ type: 'text', text: 'ok' }]);
    fixture.gates[0]!.open();
    await fixture.finished[0];
    await settle();
    expect([...store.releaseCounts().values()]).toEqual([1, 1]);
    expect(slotsHeld(inner)).toBe(0);
  });

  test('a disconnect frees the slot of the call in flight, once; the late handler end changes nothing', async () => {
    const { fixture, store, inner } = await setup();
    const { client, close } = await connectClient(fixture.server, era);
    const call = client.callTool('gated').catch((e: unknown) => e);
    await until(() => fixture.gates.length === 1, 'gated call started');
    expect(slotsHeld(inner)).toBe(1);
    await close();
    await call;
    await until(() => store.releases.length === 1, 'slot released on disconnect');
    expect(slotsHeld(inner)).toBe(0);
    fixture.gates[0]!.open();
    await fixture.finished[0];
    await settle();
    expect(store.releases).toHaveLength(1);
  });

  test('a call cancelled while the store decides: the slot it is granted is released at once and the handler never runs', async () => {
    const { fixture, store, inner } = await setup();
    const { client, close } = await connectClient(fixture.server, era);
    open.push(close);
    const slow = gate();
    store.stall = slow.promise;
    const abort = new AbortController();
    const call = client.callTool('gated', {}, { signal: abort.signal }).catch((e: unknown) => e);
    await until(() => store.admits.length === 1, 'admit asked');
    abort.abort();
    await call;
    await settle();
    slow.open();
    await until(() => store.releases.length === 1, 'granted slot released');
    expect(fixture.runs.get('gated')).toBeUndefined();
    expect(slotsHeld(inner)).toBe(0);
    store.stall = undefined;
    expect((await client.callTool('quick')).content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  test('a handler that throws frees its slot once; its error reaches the caller unchanged', async () => {
    const { fixture, store, inner } = await setup();
    fixture.server.tool('boom', { description: 'throws' }, () => {
      throw new McpError(ErrorCode.InvalidParams, 'bad input');
    });
    const { client, close } = await connectClient(fixture.server, era);
    open.push(close);
    // A tool's error is an isError result (the tool-call convention), not a JSON-RPC error.
    const result = await client.callTool('boom');
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'bad input' }] });
    await settle();
    expect(store.releases).toHaveLength(1);
    expect(slotsHeld(inner)).toBe(0);
  });
});

test('issue 26 quotas: a held slot is renewed while its call runs (fake clock), and the renewal interval stops with the last slot', async () => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  vi.setSystemTime(1_000_000);
  const fixture = fixtureServer();
  const inner = new InMemoryQuotaStore();
  fixture.server.use(quotas({ store: inner, limits: { concurrent: 1 }, leaseMs: 300 }));
  const { client, close } = await connectClient(fixture.server, 'legacy');
  open.push(close);
  const call = client.callTool('gated');
  await until(() => fixture.gates.length === 1, 'gated call started');
  // Three leases long: only renewals keep the slot.
  vi.advanceTimersByTime(900);
  expect(vi.getTimerCount()).toBe(1);
  const refused = await client.callTool('quick').catch((e: unknown) => e);
  expect(refused).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { limit: 'concurrent' } });
  fixture.gates[0]!.open();
  await call;
  await settle();
  expect(vi.getTimerCount()).toBe(0);
  expect(slotsHeld(inner)).toBe(0);
});
