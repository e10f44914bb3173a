/**
 * Issue 26 quotas, through keel-mcp/server + keel-mcp/client over the memory transport, in both
 * eras: calls per window (fake clock: no sleeps), concurrent calls, what never counts, other
 * callers unaffected, refused calls never run their handler.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ErrorCode, McpError } from 'keel-mcp/core';
import { quotas } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectClient, fixtureServer, RecordingStore, settle, type Era } from './support.js';

useProcessGuard();

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of open.splice(0).reverse()) await close();
});

async function connect(server: Parameters<typeof connectClient>[0], era: Era) {
  const connected = await connectClient(server, era);
  open.push(connected.close);
  return connected.client;
}

/** The McpError a call rejected with. */
async function refusal(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe.each<Era>(['legacy', 'modern'])('issue 26 quotas (%s era, memory transport)', (era) => {
  test('calls per window: past the rate the caller gets -32011 with retryAfterMs, the handler does not run, another caller is served; the window refills', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const { server, runs } = fixtureServer();
    server.use(quotas({ limits: { rate: { calls: 2, windowMs: 60_000 } } }));
    const a = await connect(server, era);
    const b = await connect(server, era);
    await a.callTool('quick');
    await a.callTool('quick');
    const error = await refusal(a.callTool('quick'));
    expect(error.code).toBe(ErrorCode.QuotaExceeded);
    expect(error.data).toEqual({ limit: 'rate', retryAfterMs: 30_000 });
    expect(error.message).toMatch(/2 calls per 60000 ms/);
    expect(runs.get('quick')).toBe(2);
    // B is another session: its own window.
    expect((await b.callTool('quick')).isError).toBeFalsy();
    // Methods that do not count still answer for A.
    expect((await a.listTools()).tools.length).toBeGreaterThan(0);
    await a.ping();
    vi.setSystemTime(1_000_000 + 29_999);
    expect((await refusal(a.callTool('quick'))).data).toEqual({ limit: 'rate', retryAfterMs: 1 });
    vi.setSystemTime(1_000_000 + 30_000);
    expect((await a.callTool('quick')).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(runs.get('quick')).toBe(4);
  });

  test('per-tool rate on top of the overall one: the limited tool is refused, the others are served', async () => {
    const { server, runs } = fixtureServer();
    server.use(
      quotas({
        limits: { rate: { calls: 10, windowMs: 60_000 }, tools: { quick: { calls: 1, windowMs: 60_000 } } },
      }),
    );
    const a = await connect(server, era);
    await a.callTool('quick');
    const error = await refusal(a.callTool('quick'));
    expect(error.code).toBe(ErrorCode.QuotaExceeded);
    expect(error.data).toMatchObject({ limit: 'tool:quick' });
    expect(error.message).toMatch(/1 calls of quick per 60000 ms/);
    await a.callTool('other');
    expect(runs.get('quick')).toBe(1);
    expect(runs.get('other')).toBe(1);
  });

  test('concurrent calls: a second call while one runs is refused (limit concurrent, retry hint), B is served, the slot comes back when the first ends', async () => {
    const { server, runs, gates } = fixtureServer();
    const store = new RecordingStore();
    server.use(quotas({ store, limits: { concurrent: 1 } }));
    const a = await connect(server, era);
    const b = await connect(server, era);
    const first = a.callTool('gated');
    await within(
      (async () => {
        while (gates.length === 0) await settle(1);
      })(),
      5_000,
      'gated call started',
    );
    const error = await refusal(a.callTool('quick'));
    expect(error.code).toBe(ErrorCode.QuotaExceeded);
    expect(error.data).toEqual({ limit: 'concurrent', retryAfterMs: 1_000 });
    expect(runs.get('quick')).toBeUndefined();
    await b.callTool('quick');
    gates[0]!.open();
    expect((await first).content).toEqual([{ type: 'text', text: 'late' }]);
    await a.callTool('quick');
    // Every granted slot released exactly once; refused calls held none.
    const granted = store.admits.length - 1;
    expect(granted).toBe(3);
    expect([...store.releaseCounts().values()]).toEqual([1, 1, 1]);
  });
});
