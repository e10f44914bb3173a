/**
 * Guarantees 9 (one request's failure stays in that request) and 14 (inbound messages are
 * dispatched concurrently).
 */
import { expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { Connection, McpError, type MessageInfo } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { createRecordingPair, RecordingTransport } from '../helpers/recording-transport.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, expectCleanWire, RawPeer, settle } from './support/raw-peer.js';
import { call, text, toolServer } from './support/tool-server.js';

useProcessGuard();

test('concurrent dispatch: a fast call returns while a slow one on the same connection still runs', async () => {
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
  const release = deferred();
  let slowDone = false;
  server.setRequestHandler('tools/call', async (params) => {
    if (params.name === 'slow') {
      await release.promise;
      slowDone = true;
      return { content: [{ type: 'text', text: 'slow' }] };
    }
    return { content: [{ type: 'text', text: 'fast' }] };
  });
  const [clientSide, serverSide] = createRecordingPair();
  const session = server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);

  const slow = client.request('tools/call', { name: 'slow' });
  const fast = await within(client.request('tools/call', { name: 'fast' }), 5_000, 'the fast call');

  expect(fast).toEqual({ content: [{ type: 'text', text: 'fast' }] });
  expect(slowDone).toBe(false);
  release.resolve();
  expect(await within(slow, 5_000, 'the slow call')).toEqual({ content: [{ type: 'text', text: 'slow' }] });
  await client.close();
  await session.closed;
  expectCleanWire(serverSide);
  expectCleanWire(clientSide);
});

test('responses out of order are correlated by id', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const peer = new RawPeer(remote);
  const calls = [connection.request('a'), connection.request('b'), connection.request('c')];
  const requests = [await peer.read(), await peer.read(), await peer.read()];
  for (const request of [...requests].reverse())
    await peer.send({ id: request.id, result: { m: request.method } });
  expect(await within(Promise.all(calls), 5_000, 'calls')).toEqual([{ m: 'a' }, { m: 'b' }, { m: 'c' }]);
  await connection.close();
  expectCleanWire(local);
});

test('a throwing handler answers its own request with an error and the next request is served', async () => {
  const { peer, serverSide, session } = await toolServer({
    sync: () => {
      throw new Error('sync boom');
    },
    async: async () => {
      throw new McpError(-32602, 'bad arguments', { field: 'x' });
    },
    ok: () => text('ok'),
  });
  await peer.request('tools/call', call('sync'), 1);
  expect(await peer.read()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'sync boom' } });
  await peer.request('tools/call', call('async'), 2);
  expect(await peer.read()).toEqual({
    jsonrpc: '2.0',
    id: 2,
    error: { code: -32602, message: 'bad arguments', data: { field: 'x' } },
  });
  await peer.request('tools/call', call('ok'), 3);
  expect(await peer.read()).toEqual({ jsonrpc: '2.0', id: 3, result: text('ok') });
  await session.close();
  expectCleanWire(serverSide);
});

test('throwing and rejecting notification handlers are contained and logged', async () => {
  const server = new Server({ name: 's', version: '1' });
  server.setNotificationHandler('notifications/roots/list_changed', () => {
    throw new Error('sync notification failure');
  });
  server.setNotificationHandler('notifications/custom', async () => {
    throw new Error('async notification failure');
  });
  const errors: unknown[] = [];
  const [peerSide, serverSide] = createRecordingPair();
  const session = server.connect(serverSide, {
    logger: { debug() {}, error: (_m, detail) => void errors.push(detail) },
  });
  const peer = new RawPeer(peerSide);
  await peer.initialize();
  await peer.notify('notifications/roots/list_changed');
  await peer.notify('notifications/custom');
  await peer.request('ping', undefined, 9);
  expect(await peer.read()).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  await settle();
  expect(errors.map((e) => (e as Error).message).sort()).toEqual([
    'async notification failure',
    'sync notification failure',
  ]);
  await session.close();
  expectCleanWire(serverSide);
});

test('bad messages are answered or dropped and the connection keeps serving', async () => {
  const { peer, serverSide, session } = await toolServer({ ok: () => text('ok') });
  await peer.transport.send({ jsonrpc: '1.0', id: 1, method: 'x' } as never);
  expect(await peer.read()).toMatchObject({ id: 1, error: { code: -32600 } });
  await peer.transport.send({ jsonrpc: '2.0', id: true, method: 'x' } as never);
  expect(await peer.read()).toMatchObject({ id: null, error: { code: -32600 } });
  await peer.transport.send({ jsonrpc: '2.0', id: 2, method: 'x', params: [1] } as never);
  expect(await peer.read()).toMatchObject({ id: 2, error: { code: -32602 } });
  await peer.transport.send({ jsonrpc: '2.0', id: 3, result: 'not an object' } as never); // dropped
  await peer.transport.send({ jsonrpc: '2.0', id: 4, method: 'no/such/method' } as never);
  expect(await peer.read()).toMatchObject({ id: 4, error: { code: -32601 } });
  await peer.request('tools/call', call('ok'), 5);
  expect(await peer.read()).toEqual({ jsonrpc: '2.0', id: 5, result: text('ok') });
  await session.close();
  expectCleanWire(serverSide);
});

test('a transport hook that throws affects only its message', async () => {
  class FlakyInfo extends RecordingTransport {
    messageInfo(message: object): MessageInfo | undefined {
      if ((message as { id?: unknown }).id === 1) throw new Error('hook failure');
      return undefined;
    }
  }
  const local = new FlakyInfo();
  const remote = new RecordingTransport();
  RecordingTransport.link(local, remote);
  const connection = new Connection(local);
  connection.setRequestHandler('echo', (params) => params);
  void connection.start();
  const peer = new RawPeer(remote);
  await peer.request('echo', { n: 1 }, 1);
  await peer.request('echo', { n: 2 }, 2);
  expect(await peer.read('the first answer')).toEqual({
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32603, message: 'Internal error' },
  });
  expect(await peer.read('the second answer')).toEqual({
    jsonrpc: '2.0',
    id: 2,
    result: { n: 2 },
  });
  expect(connection.isOpen).toBe(true);
  await connection.close();
  expectCleanWire(local);
});

test('a handler that closes its own connection gets one answer (the shutdown one), never two', async () => {
  const [peerSide, local] = createRecordingPair();
  const connection = new Connection(local);
  connection.setRequestHandler('quit', () => {
    void connection.close();
    return { bye: true };
  });
  void connection.start();
  const peer = new RawPeer(peerSide);
  await peer.request('quit', {}, 1);
  await within(connection.closed, 5_000, 'closed');
  expect(local.sent.filter((m) => 'id' in m && m.id === 1)).toHaveLength(1);
  expectCleanWire(local);
});

test('a message already read when close() is called is not handled', async () => {
  const [peerSide, local] = createRecordingPair();
  const connection = new Connection(local);
  const seen: string[] = [];
  connection.setNotificationHandler('notifications/note', () => void seen.push('note'));
  connection.setRequestHandler('count', () => {
    seen.push('count');
    return {};
  });
  void connection.start();
  const peer = new RawPeer(peerSide);
  await settle(); // the read loop now waits for the next message

  void peer.notify('notifications/note'); // handed to the waiting reader at once
  void peer.request('count', {}, 1);
  const closing = connection.close(); // before the reader got to run

  await within(closing, 5_000, 'close');
  await settle();
  expect(seen).toEqual([]);
  expect(local.sent).toEqual([]);
  expectCleanWire(local);
});
