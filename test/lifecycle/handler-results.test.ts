/**
 * Issue 9 items 15 and 18: any thenable a handler returns is awaited (not only a native Promise);
 * a numeric request id that JSON cannot carry exactly is refused and never runs.
 */
import { PassThrough } from 'node:stream';
import { expect, test } from 'vitest';
import { Connection, type Logger } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { serveStdio } from 'keel-mcp/stdio';
import { MemoryTransport } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { RecordingTransport } from '../helpers/recording-transport.js';
import { deferred, expectCleanWire, RawPeer, responsesFor, settle } from './support/raw-peer.js';

useProcessGuard();

function pair(logger?: Logger) {
  const local = new RecordingTransport();
  const remote = new RecordingTransport();
  MemoryTransport.link(local, remote);
  const connection = new Connection(local, { logger });
  void connection.start();
  return { connection, local, peer: new RawPeer(remote) };
}

/** A minimal foreign thenable (another promise library, another realm). */
function thenable<T>(
  settle: (resolve: (v: T) => void, reject: (e: unknown) => void) => void,
): PromiseLike<T> {
  return {
    then(onFulfilled, onRejected) {
      return new Promise<T>((resolve, reject) => setImmediate(() => settle(resolve, reject))).then(
        onFulfilled,
        onRejected,
      );
    },
  };
}

test('a handler returning a foreign thenable is answered with what it resolves to', async () => {
  const { connection, local, peer } = pair();
  connection.setRequestHandler('ok', () => thenable((resolve) => resolve({ value: 42 })) as never);
  connection.setRequestHandler('fail', () => thenable((_r, reject) => reject(new Error('nope'))) as never);
  await peer.request('ok', {}, 1);
  await peer.request('fail', {}, 2);
  const answers = [await peer.read('answer'), await peer.read('answer')];
  expect(answers).toContainEqual({ jsonrpc: '2.0', id: 1, result: { value: 42 } });
  expect(answers).toContainEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'nope' } });
  await connection.close();
  expectCleanWire(local);
});

test('a notification handler returning a rejecting thenable is contained and logged', async () => {
  const errors: string[] = [];
  const logged = deferred();
  const { connection, peer } = pair({
    debug() {},
    error: (message) => {
      errors.push(message);
      logged.resolve();
    },
  });
  connection.setNotificationHandler('notifications/x', () =>
    thenable<void>((_r, reject) => reject(new Error('bad'))),
  );
  await peer.notify('notifications/x');
  await within(logged.promise, 5_000, 'the log');
  expect(errors).toEqual(['notification handler notifications/x failed']);
  await connection.close();
});

test('issue 9 item 18: a numeric id beyond 2^53 (or fractional) is refused with id null and never runs', async () => {
  const { connection, local, peer } = pair();
  let runs = 0;
  connection.setRequestHandler('ping', () => {
    runs++;
    return {};
  });
  await peer.request('ping', {}, 2 ** 53 + 2);
  await peer.request('ping', {}, 1.5);
  await peer.request('ping', {}, 2 ** 53 - 1); // the largest safe id works
  const answers = [await peer.read('a'), await peer.read('b'), await peer.read('c')];
  expect(answers.slice(0, 2)).toEqual([
    {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('use a string id') },
    },
    {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('use a string id') },
    },
  ]);
  expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 2 ** 53 - 1, result: {} });
  expect(runs).toBe(1);
  await settle();
  expect(responsesFor(local.sent, 2 ** 53 + 2)).toEqual([]);
  await connection.close();
});

test('issue 9 item 18 over stdio: the line with id 9007199254740993 gets one id-null -32600, and serving goes on', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  let buffer = '';
  const gotTwo = deferred();
  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
    if (lines.length >= 2) gotTwo.resolve();
  });
  // The server answers ping itself; the engine-level test above proves a refused request never runs.
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  const served = serveStdio(server, { stdin, stdout });
  stdin.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n');
  stdin.write('{"jsonrpc":"2.0","id":"s","method":"ping"}\n');
  await within(gotTwo.promise, 5_000, 'two answers');
  stdin.end();
  await within(served, 5_000, 'serveStdio');
  const answers = lines.map((line) => JSON.parse(line) as { id: unknown; error?: { code: number } });
  expect(answers).toHaveLength(2);
  expect(answers[0]).toMatchObject({ id: null, error: { code: -32600 } });
  expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 's', result: {} });
});
