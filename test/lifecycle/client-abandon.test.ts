/**
 * Guarantee 12: abandoning a call (timeout, caller abort) cancels it on the wire exactly once, never
 * for `initialize`; a late response is ignored; timeouts reset on progress and stop at a maximum
 * total time. Timers are faked, so nothing depends on machine speed.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { Client } from 'keel-mcp/client';
import {
  Connection,
  CancelledByPeerError,
  ConnectionClosedError,
  RequestAbortedError,
  RequestTimeoutError,
} from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { createRecordingPair } from '../helpers/recording-transport.js';
import { useProcessGuard } from '../helpers/guard.js';
import { aborted, deferred, expectCleanWire, RawPeer, withMethod } from './support/raw-peer.js';

useProcessGuard();
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A raw peer facing a started Connection. */
function connectionWithPeer(options?: ConstructorParameters<typeof Connection>[1]) {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local, options);
  void connection.start();
  return { connection, local, peer: new RawPeer(remote) };
}

const cancelsOf = (sent: Parameters<typeof withMethod>[0]) => withMethod(sent, 'notifications/cancelled');

test('python-sdk#2507: a timed-out call is cancelled on the wire once and the server handler is aborted', async () => {
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
  const started = deferred();
  const reason = deferred<unknown>();
  server.setRequestHandler('tools/call', async (_params, ctx) => {
    started.resolve();
    reason.resolve(await aborted(ctx.signal));
    return { content: [] };
  });
  const [clientSide, serverSide] = createRecordingPair();
  const session = server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  const outcome = client
    .request('tools/call', { name: 'slow' }, { timeoutMs: 1_000 })
    .catch((e: unknown) => e);
  await started.promise;
  const id = withMethod(clientSide.sent, 'tools/call')[0]!.id;

  await vi.advanceTimersByTimeAsync(999);
  expect(cancelsOf(clientSide.sent)).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);

  const error = (await outcome) as RequestTimeoutError;
  expect(error).toBeInstanceOf(RequestTimeoutError);
  expect(error.timeoutMs).toBe(1_000);
  expect(await reason.promise).toBeInstanceOf(CancelledByPeerError);
  expect(cancelsOf(clientSide.sent)).toEqual([
    expect.objectContaining({ params: { requestId: id, reason: 'Request timed out after 1000 ms' } }),
  ]);
  expect(await client.request('ping')).toEqual({}); // the session survives
  await client.close();
  await session.closed;
  expectCleanWire(serverSide, [id!]);
  expectCleanWire(clientSide);
});

test('a caller abort rejects with RequestAbortedError and sends exactly one cancel, even if aborted again later', async () => {
  const { connection, local, peer } = connectionWithPeer();
  const controller = new AbortController();
  const outcome = connection
    .request('slow', {}, { signal: controller.signal, timeoutMs: 1_000 })
    .catch((e: unknown) => e);
  const request = await peer.read();

  controller.abort(new Error('stop'));
  controller.abort(new Error('stop again'));
  await vi.advanceTimersByTimeAsync(5_000); // the timeout must not fire a second cancel

  const error = (await outcome) as RequestAbortedError;
  expect(error).toBeInstanceOf(RequestAbortedError);
  expect(error.cause).toEqual(new Error('stop'));
  expect(cancelsOf(local.sent)).toEqual([
    expect.objectContaining({ params: { requestId: request.id, reason: 'Request aborted by the caller' } }),
  ]);
  await connection.close();
  expectCleanWire(local);
});

test('an already-aborted signal rejects at once and writes nothing', async () => {
  const { connection, local } = connectionWithPeer();
  const error = await connection
    .request('x', {}, { signal: AbortSignal.abort('no') })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RequestAbortedError);
  expect(local.sent).toEqual([]);
  await connection.close();
  expectCleanWire(local);
});

test('a late response to an abandoned call is ignored and the connection keeps working', async () => {
  const { connection, local, peer } = connectionWithPeer();
  const outcome = connection.request('slow', {}, { timeoutMs: 100 }).catch((e: unknown) => e);
  const request = await peer.read();
  await vi.advanceTimersByTimeAsync(100);
  expect(await outcome).toBeInstanceOf(RequestTimeoutError);
  expect(await peer.read()).toMatchObject({ method: 'notifications/cancelled' });

  await peer.send({ id: request.id, result: { late: true } });
  await peer.send({ id: request.id, error: { code: -32603, message: 'late error' } });
  const next = connection.request('next', {}, { timeoutMs: 100 });
  const second = await peer.read();
  await peer.send({ id: second.id, result: { ok: true } });

  expect(await next).toEqual({ ok: true });
  await connection.close();
  expectCleanWire(local);
});

test('initialize is never cancelled: a client whose initialize times out sends no notifications/cancelled', async () => {
  const [clientSide, serverSide] = createRecordingPair();
  const peer = new RawPeer(serverSide); // a server that never answers
  const client = new Client({ name: 'c', version: '1' });
  const connecting = client.connect(clientSide, { timeoutMs: 500 }).catch((e: unknown) => e);
  expect(await peer.read()).toMatchObject({ method: 'initialize' });

  await vi.advanceTimersByTimeAsync(500);

  expect(await connecting).toBeInstanceOf(RequestTimeoutError);
  expect(cancelsOf(clientSide.sent)).toEqual([]);
  expect(await peer.inputEnds()).toBe(true); // the failed connect closed the connection
  expect(client.isConnected).toBe(false);
  await expect(client.request('ping')).rejects.toBeInstanceOf(ConnectionClosedError);
  expectCleanWire(clientSide);
});

test('initialize aborted by the caller sends no notifications/cancelled either', async () => {
  const [clientSide, serverSide] = createRecordingPair();
  const peer = new RawPeer(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  const controller = new AbortController();
  const connecting = client.connect(clientSide, { signal: controller.signal }).catch((e: unknown) => e);
  await peer.read();
  controller.abort();
  expect(await connecting).toBeInstanceOf(RequestAbortedError);
  expect(cancelsOf(clientSide.sent)).toEqual([]);
  expectCleanWire(clientSide);
});

test('progress resets the timeout', async () => {
  const { connection, local, peer } = connectionWithPeer();
  const seen: number[] = [];
  const outcome = connection
    .request('long', {}, { timeoutMs: 1_000, onprogress: (p) => seen.push(p.progress) })
    .catch((e: unknown) => e);
  const request = await peer.read();
  const token = (request.params?._meta as { progressToken: number }).progressToken;
  let settled = false;
  void outcome.then(() => (settled = true));

  for (let step = 1; step <= 5; step++) {
    await vi.advanceTimersByTimeAsync(900);
    await peer.notify('notifications/progress', { progressToken: token, progress: step });
  }
  await vi.advanceTimersByTimeAsync(999);
  expect(settled).toBe(false); // 5.4 s in, far past timeoutMs, still alive thanks to progress
  await vi.advanceTimersByTimeAsync(1);

  expect(await outcome).toBeInstanceOf(RequestTimeoutError);
  expect(seen).toEqual([1, 2, 3, 4, 5]);
  await connection.close();
  expectCleanWire(local);
});

test('progress does not extend a call past maxTotalTimeoutMs', async () => {
  const { connection, local, peer } = connectionWithPeer();
  const outcome = connection
    .request('long', {}, { timeoutMs: 1_000, maxTotalTimeoutMs: 2_500, onprogress: () => undefined })
    .catch((e: unknown) => e);
  const request = await peer.read();
  const token = (request.params?._meta as { progressToken: number }).progressToken;
  let settled = false;
  void outcome.then(() => (settled = true));

  await vi.advanceTimersByTimeAsync(900);
  await peer.notify('notifications/progress', { progressToken: token, progress: 1 });
  await vi.advanceTimersByTimeAsync(900);
  await peer.notify('notifications/progress', { progressToken: token, progress: 2 });
  await vi.advanceTimersByTimeAsync(699);
  expect(settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);

  const error = (await outcome) as RequestTimeoutError;
  expect(error).toBeInstanceOf(RequestTimeoutError);
  expect(error.timeoutMs).toBe(2_500);
  expect(cancelsOf(local.sent)).toHaveLength(1);
  await connection.close();
  expectCleanWire(local);
});

test('with resetTimeoutOnProgress off, progress is delivered but the timeout still fires on time', async () => {
  const { connection, local, peer } = connectionWithPeer();
  const seen: number[] = [];
  const outcome = connection
    .request(
      'long',
      {},
      { timeoutMs: 1_000, resetTimeoutOnProgress: false, onprogress: (p) => seen.push(p.progress) },
    )
    .catch((e: unknown) => e);
  const request = await peer.read();
  const token = (request.params?._meta as { progressToken: number }).progressToken;
  await vi.advanceTimersByTimeAsync(900);
  await peer.notify('notifications/progress', { progressToken: token, progress: 1 });
  await vi.advanceTimersByTimeAsync(100);
  expect(await outcome).toBeInstanceOf(RequestTimeoutError);
  expect(seen).toEqual([1]);
  await connection.close();
  expectCleanWire(local);
});

test('the connection default timeout applies, and a per-call timeout overrides it', async () => {
  const { connection, local, peer } = connectionWithPeer({ requestDefaults: { timeoutMs: 300 } });
  const byDefault = connection.request('a').catch((e: unknown) => e);
  const overridden = connection.request('b', {}, { timeoutMs: 10_000 }).catch((e: unknown) => e);
  await peer.read();
  await peer.read();
  await vi.advanceTimersByTimeAsync(300);
  expect(await byDefault).toBeInstanceOf(RequestTimeoutError);
  let settled = false;
  void overridden.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(5_000);
  expect(settled).toBe(false);
  await connection.close();
  expect(await overridden).toBeInstanceOf(ConnectionClosedError);
  expectCleanWire(local);
});

test('a timeout on a connection that is not started yet is a timeout, not a close', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  const outcome = connection.request('early', {}, { timeoutMs: 100 }).catch((e: unknown) => e);
  await vi.advanceTimersByTimeAsync(100);
  expect(await outcome).toBeInstanceOf(RequestTimeoutError);
  expect(cancelsOf(local.sent)).toHaveLength(1);
  await connection.close();
  void remote;
  expectCleanWire(local);
});
