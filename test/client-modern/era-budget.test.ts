/**
 * Review fix (brief SF item 1, last part): `connect`'s `timeoutMs` is one budget for the whole
 * era decision (probe, fallback `initialize`, re-probe), not a fresh allowance per request. Fake
 * timers: the test reads which side of the deadline `connect` settled on, not how fast it ran.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { rememberEra } from '../../src/client/modern/era.js';
import { RequestTimeoutError, type Transport } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { INFO, methodsSent, useModern } from './helpers.js';

useProcessGuard();
const { raw, track } = useModern();
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const silent = (): Promise<never> => new Promise<never>(() => undefined);

function watch(promise: Promise<unknown>): { settled: boolean; outcome: unknown } {
  const state: { settled: boolean; outcome: unknown } = { settled: false, outcome: undefined };
  promise.then(
    (value) => Object.assign(state, { settled: true, outcome: value }),
    (error: unknown) => Object.assign(state, { settled: true, outcome: error }),
  );
  return state;
}

test('stdio-like: a silent probe falls back at discoverTimeoutMs; initialize only gets what is left', async () => {
  const server = raw({ 'server/discover': silent, initialize: silent });
  const c = new McpClient(INFO, { discoverTimeoutMs: 600 });
  track(() => c.close());
  const connecting = watch(c.connect(server.transport, { timeoutMs: 1_000 }));
  await vi.advanceTimersByTimeAsync(600);
  expect(server.seen).toEqual(['server/discover', 'initialize']);
  await vi.advanceTimersByTimeAsync(399);
  expect(connecting.settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  // Without one budget, initialize would get a full 1,000 ms of its own (settling at 1,600).
  expect(connecting.settled).toBe(true);
  expect(connecting.outcome).toBeInstanceOf(RequestTimeoutError);
  expect(c.isConnected).toBe(false);
});

test('a cached legacy server whose initialize times out is not probed again past the budget', async () => {
  const key = 'http://127.0.0.1:1/mcp-budget';
  rememberEra(key, 'legacy');
  const server = raw({ 'server/discover': silent, initialize: silent });
  const c = new McpClient(INFO);
  track(() => c.close());
  const transport: Transport = Object.assign(server.transport, { serverKey: key });
  const connecting = watch(c.connect(transport, { timeoutMs: 500 }));
  await vi.advanceTimersByTimeAsync(500);
  expect(connecting.settled).toBe(true);
  expect(connecting.outcome).toBeInstanceOf(RequestTimeoutError);
  expect(methodsSent(server.transport).filter((m) => m === 'server/discover')).toEqual([]);
});

test('a successful connect leaves no budget timer behind', async () => {
  const server = raw({
    'server/discover': () => ({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: {},
    }),
  });
  const c = new McpClient(INFO);
  track(() => c.close());
  const connecting = watch(c.connect(server.transport, { timeoutMs: 10_000 }));
  await vi.advanceTimersByTimeAsync(0);
  expect(connecting.settled).toBe(true);
  expect(c.era).toBe('modern');
  expect(vi.getTimerCount()).toBe(0);
});
