/**
 * Guarantee 6 (close fails every pending outbound request exactly once, from a snapshot), 7 (use
 * after close fails fast / is dropped) and 13 (local errors are typed and carry the transport's
 * last error as `cause`).
 */
import { expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import {
  Connection,
  ConnectionClosedError,
  LocalError,
  McpError,
  NotConnectedError,
  RequestAbortedError,
} from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { createRecordingPair } from '../helpers/recording-transport.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { expectCleanWire, RawPeer, settle, withMethod } from './support/raw-peer.js';

useProcessGuard();

for (const n of [2, 100]) {
  test(`close rejects each of ${n} pending requests exactly once from a snapshot of the pending table`, async () => {
    const [local, remote] = createRecordingPair();
    const connection = new Connection(local);
    void connection.start();
    const peer = new RawPeer(remote);
    const outcomes: unknown[][] = Array.from({ length: n }, () => []);
    const retries: Promise<unknown>[] = [];
    const calls = Array.from({ length: n }, (_, i) =>
      connection.request('slow', { i }).then(
        (value) => void outcomes[i]!.push(value),
        (error: unknown) => {
          outcomes[i]!.push(error);
          // Waking waiters touch the connection during teardown: a new request, a second close.
          retries.push(connection.request('again', { i }).catch((e: unknown) => e));
          void connection.close();
        },
      ),
    );
    for (let i = 0; i < n; i++) await peer.read('a request');
    expect(connection.pendingCount).toBe(n);

    await connection.close();
    await within(Promise.all(calls), 5_000, 'pending requests');
    const again = await within(Promise.all(retries), 5_000, 'retries');

    for (const outcome of outcomes) {
      expect(outcome).toHaveLength(1);
      expect(outcome[0]).toBeInstanceOf(ConnectionClosedError);
    }
    expect(again).toHaveLength(n);
    for (const error of again) expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(connection.pendingCount).toBe(0);
    // The retries were refused locally: nothing after the n originals reached the wire.
    expect(local.sent).toHaveLength(n);
    expectCleanWire(local);
  });
}

test('server dies mid-call: the pending call rejects with ConnectionClosedError and onclose fires once', async () => {
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
  const started = new Promise<void>((resolve) =>
    server.setRequestHandler('tools/call', () => {
      resolve();
      return new Promise(() => undefined); // never answers
    }),
  );
  const [clientSide, serverSide] = createRecordingPair();
  server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  let closes = 0;
  client.connection.onClose(() => closes++);
  const call = client.request('tools/call', { name: 'hang' });
  await within(started, 5_000, 'handler start');

  await serverSide.close(); // the server process is gone

  const error = await within(
    call.catch((e: unknown) => e),
    5_000,
    'the pending call',
  );
  expect(error).toBeInstanceOf(ConnectionClosedError);
  expect(error).not.toBeInstanceOf(McpError);
  await within(client.closed, 5_000, 'client.closed');
  await client.close();
  expect(closes).toBe(1);
  expect(client.isConnected).toBe(false);
  expectCleanWire(clientSide);
});

test('connection-closed errors carry the transport last error as cause', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const peer = new RawPeer(remote);
  const call = connection.request('slow').catch((e: unknown) => e);
  await peer.read('the request');
  const exit = new Error('child exited with code 1');

  local.endInput(exit); // the read side fails with an I/O error

  const error = (await within(call, 5_000, 'the call')) as ConnectionClosedError;
  expect(error).toBeInstanceOf(ConnectionClosedError);
  expect(error.cause).toBe(exit);
  const late = (await connection.request('after').catch((e: unknown) => e)) as ConnectionClosedError;
  expect(late).toBeInstanceOf(ConnectionClosedError);
  expect(late.cause).toBe(exit);
  expectCleanWire(local);
});

test('a request over a broken write side fails fast with ConnectionClosedError caused by the write error', async () => {
  const [local] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
  local.breakOutput(epipe);

  const error = (await within(
    connection.request('ping').catch((e: unknown) => e),
    5_000,
    'the request',
  )) as ConnectionClosedError;

  expect(error).toBeInstanceOf(ConnectionClosedError);
  expect(error.cause).toBe(epipe);
  expect(connection.pendingCount).toBe(0);
  await connection.close();
  expectCleanWire(local);
});

test('use after close: a request fails at once with ConnectionClosedError and a notification is dropped', async () => {
  const server = new Server({ name: 's', version: '1' });
  const [clientSide, serverSide] = createRecordingPair();
  const session = server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  await client.close();
  const wireBefore = clientSide.sent.length;

  await expect(client.request('tools/list', {})).rejects.toBeInstanceOf(ConnectionClosedError);
  await expect(client.notify('notifications/roots/list_changed')).resolves.toBeUndefined();

  expect(clientSide.sent.length).toBe(wireBefore);
  await within(session.closed, 5_000, 'session.closed');
  expectCleanWire(clientSide);
  expectCleanWire(serverSide);
});

test('a request made right after close() (not awaited) fails with ConnectionClosedError and is never written', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const closing = connection.close();

  const error = await connection.request('ping').catch((e: unknown) => e);
  connection.notify('notifications/message', { level: 'info', data: 'x' }).catch(() => undefined);

  expect(error).toBeInstanceOf(ConnectionClosedError);
  await within(closing, 5_000, 'close');
  expect(local.sent).toEqual([]);
  expect(await new RawPeer(remote).inputEnds()).toBe(true);
  expectCleanWire(local);
});

test('before connect, the low-level client rejects with NotConnectedError', async () => {
  const client = new Client({ name: 'c', version: '1' });
  await expect(client.request('tools/list')).rejects.toBeInstanceOf(NotConnectedError);
  await expect(client.notify('notifications/initialized')).rejects.toBeInstanceOf(NotConnectedError);
  await expect(client.close()).resolves.toBeUndefined();
});

test('local errors are distinct types, none of them a wire error', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const peer = new RawPeer(remote);
  const controller = new AbortController();
  const aborted = connection.request('a', {}, { signal: controller.signal }).catch((e: unknown) => e);
  const peerError = connection.request('b').catch((e: unknown) => e);
  const closed = connection.request('c').catch((e: unknown) => e);
  await peer.read('a');
  const b = await peer.read('b');
  await peer.read('c');

  controller.abort(new Error('user gave up'));
  await peer.send({ id: b.id, error: { code: -32000, message: 'Connection closed (from the peer)' } });
  await settle();
  await connection.close();

  const results = await within(Promise.all([aborted, peerError, closed]), 5_000, 'calls');
  expect(results[0]).toBeInstanceOf(RequestAbortedError);
  expect((results[0] as Error).cause).toEqual(new Error('user gave up'));
  // A peer may send -32000 too: it is an McpError, never confused with the local condition.
  expect(results[1]).toBeInstanceOf(McpError);
  expect(results[1]).not.toBeInstanceOf(LocalError);
  expect(results[1]).toMatchObject({ code: -32000 });
  expect(results[2]).toBeInstanceOf(ConnectionClosedError);
  expect(results[2]).not.toBeInstanceOf(McpError);
  expect(withMethod(local.sent, 'notifications/cancelled')).toHaveLength(1);
  expectCleanWire(local);
});
