/**
 * Lifecycle scenario 21's stdio equivalent and the modern halves of guarantees 2, 12 and 16 over a
 * real stdio child (test/modern/fixtures/modern-lifecycle-server.mjs, built package), 2026-07-28
 * requests only (per-request `_meta`, no `initialize`):
 * - `notifications/cancelled` aborts exactly that handler with CancelledByPeerError; nothing more
 *   is written for it (not its late progress, not its result); a concurrent request completes;
 * - stdin EOF is a shutdown: the handler aborts with ConnectionClosedError and the process exits 0;
 * - Keel's engine, as a modern client, abandoning a call (caller abort, timeout) sends exactly one
 *   `notifications/cancelled` for it, and the server's handler sees a peer cancel.
 */
import { join } from 'node:path';
import { beforeAll, expect, test, vi } from 'vitest';
import {
  Connection,
  RequestAbortedError,
  RequestTimeoutError,
  type JsonObject,
  type JsonRpcMessage,
} from 'keel-mcp/core';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  CHILD_TEST_TIMEOUT_MS,
  endAndExpectCleanExit,
  RawServer,
  ROOT,
  useChildCleanup,
  WAIT_MS,
  type Json,
} from '../stdio/helpers.js';
import type { HoldEvent } from './fixtures/hold-tools.mjs';
import { meta } from './harness.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const SERVER = join(ROOT, 'test', 'modern', 'fixtures', 'modern-lifecycle-server.mjs');

/** The `HOLD {json}` events a child reported on stderr so far. */
function events(stderr: string): HoldEvent[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('HOLD '))
    .map((line) => JSON.parse(line.slice(5)) as HoldEvent);
}

/** The first event with this name and key, bounded: polled on each stderr chunk. */
function eventOf(read: () => string, subscribe: (listener: () => void) => () => void) {
  return (event: HoldEvent['event'], key: string): Promise<HoldEvent> => {
    const find = (): HoldEvent | undefined => events(read()).find((e) => e.event === event && e.key === key);
    const seen = find();
    if (seen) return Promise.resolve(seen);
    let unsubscribe = (): void => undefined;
    const found = new Promise<HoldEvent>((resolve) => {
      unsubscribe = subscribe(() => {
        const hit = find();
        if (hit) resolve(hit);
      });
    });
    return within(found, WAIT_MS, `${event} ${key} (stderr: ${read()})`).finally(() => unsubscribe());
  };
}

function rawEvents(server: RawServer) {
  return eventOf(
    () => server.stderr,
    (listener) => {
      server.child.stderr!.on('data', listener);
      return () => server.child.stderr!.off('data', listener);
    },
  );
}

function modernCall(id: string, name: string, args: Json, extra: Json = {}): Json {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta(extra) } };
}

function progressFor(server: RawServer, token: string): Json[] {
  return server.messages.filter(
    (m) => m.method === 'notifications/progress' && m.params?.progressToken === token,
  );
}

test('scenario 21 (stdio): notifications/cancelled aborts that handler alone as a peer cancel; nothing more is written for it', async () => {
  const server = new RawServer(SERVER);
  const event = rawEvents(server);
  server.send(modernCall('a', 'hold', { key: 'a', stubborn: true }, { progressToken: 'ta' }));
  server.send(modernCall('b', 'hold', { key: 'b' }, { progressToken: 'tb' }));
  await server.waitFor((m) => m.params?.progressToken === 'ta', 'a progress');
  await server.waitFor((m) => m.params?.progressToken === 'tb', 'b progress');

  server.send({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: 'a', reason: 'user' },
  });
  expect(await event('aborted', 'a')).toEqual({ event: 'aborted', key: 'a', reason: 'CancelledByPeerError' });
  // The stubborn handler goes on: a late progress and a result, both to be dropped.
  server.send(modernCall('r1', 'release', { key: 'a' }));
  await event('after', 'a');
  await server.response('r1');
  // b completes on the same connection; it is read and answered after a's handler went on.
  server.send(modernCall('r2', 'release', { key: 'b' }));
  expect(await server.response('b')).toMatchObject({
    result: { content: [{ type: 'text', text: 'held b' }] },
  });
  expect(server.responsesFor('a')).toEqual([]);
  expect(progressFor(server, 'ta').map((m) => m.params.progress)).toEqual([0]);
  expect(progressFor(server, 'tb').map((m) => m.params.progress)).toEqual([0, 1]);
  expect(events(server.stderr).filter((e) => e.event === 'aborted')).toHaveLength(1);
  await endAndExpectCleanExit(server);
});

test('guarantees 2 and 16 (stdio): EOF is a shutdown, the modern handler aborts with ConnectionClosedError', async () => {
  const server = new RawServer(SERVER);
  const event = rawEvents(server);
  server.send(modernCall('a', 'hold', { key: 'a' }, { progressToken: 'ta' }));
  await event('started', 'a');
  await endAndExpectCleanExit(server);
  expect(events(server.stderr).filter((e) => e.event === 'aborted')).toEqual([
    { event: 'aborted', key: 'a', reason: 'ConnectionClosedError' },
  ]);
  // Default EOF policy: nothing more is written for the request.
  expect(server.responsesFor('a')).toEqual([]);
});

test.each([
  ['the caller aborts', RequestAbortedError],
  ['the call times out', RequestTimeoutError],
] as const)(
  'guarantee 12 (stdio, modern): when %s, exactly one notifications/cancelled is sent and the handler sees a peer cancel',
  async (how, LocalError) => {
    let stderr = '';
    const listeners = new Set<() => void>();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      stderr: 'pipe',
      onStderr: (text) => {
        stderr += text;
        for (const listener of listeners) listener();
      },
    });
    const event = eventOf(
      () => stderr,
      (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    );
    const wire: JsonRpcMessage[] = [];
    const send = transport.send.bind(transport);
    transport.send = (message: JsonRpcMessage) => {
      wire.push(message);
      return send(message);
    };
    const client = new Connection(transport);
    void client.start();
    const controller = new AbortController();
    const pending = client.request(
      'tools/call',
      { name: 'hold', arguments: { key: 'a' }, _meta: meta() },
      how === 'the caller aborts'
        ? { signal: controller.signal, timeoutMs: WAIT_MS }
        : { timeoutMs: 1_000, resetTimeoutOnProgress: false },
    );
    const settled = pending.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await event('started', 'a');
    controller.abort();
    expect(await within(settled, WAIT_MS, 'local rejection')).toBeInstanceOf(LocalError);
    expect(await event('aborted', 'a')).toEqual({
      event: 'aborted',
      key: 'a',
      reason: 'CancelledByPeerError',
    });
    // The connection still serves: a later call completes (and shows the cancel was read first).
    const released = await client.request(
      'tools/call',
      { name: 'release', arguments: { key: 'x' }, _meta: meta() },
      { timeoutMs: WAIT_MS },
    );
    expect(released).toMatchObject({ content: [{ type: 'text', text: 'released x' }] });
    const cancels = wire.filter((m) => (m as unknown as JsonObject).method === 'notifications/cancelled');
    expect(cancels).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ requestId: expect.anything() }) }),
    ]);
    const callId = (wire[0] as unknown as JsonObject).id;
    expect((cancels[0] as unknown as { params: JsonObject }).params.requestId).toBe(callId);
    await within(client.close(), WAIT_MS, 'client close');
  },
);
