/**
 * Parts of a connection made on first use or shared between connections (memory per idle HTTP
 * session), and what they must still do: `closed` settles after teardown whenever it is first
 * asked for (guarantee 15: callbacks first, once), write failures are reported to each
 * connection's own logger although the handler is shared per logger (guarantee 7), and the read
 * loop (callbacks, not an async function) still ends every failed read in the one teardown.
 */
import { expect, test } from 'vitest';
import {
  Connection,
  type Logger,
  ConnectionClosedError,
  type JsonRpcMessage,
  type Transport,
} from 'keel-mcp/core';
import { createMemoryPair, MemoryTransport } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

test('closed, first asked for after teardown, is settled; asked for in a close callback, settles after the callbacks', async () => {
  const [a, b] = createMemoryPair();
  const late = new Connection(a);
  const peer = new Connection(b);
  late.begin();
  peer.begin();
  const order: string[] = [];
  let fromCallback: Promise<void> | undefined;
  late.onClose(() => {
    order.push('callback 1');
    fromCallback = late.closed.then(() => void order.push('closed'));
  });
  const tornDown = new Promise<void>((resolve) =>
    late.onClose(() => {
      order.push('callback 2');
      resolve();
    }),
  );
  await within(peer.close(), 5_000, 'peer close');
  // The peer's close is `late`'s EOF: its teardown runs without anyone holding `closed`.
  await within(tornDown, 5_000, 'teardown');
  await within(late.closed, 5_000, 'late.closed');
  await within(fromCallback!, 5_000, 'closed from a callback');
  expect(order).toEqual(['callback 1', 'callback 2', 'closed']);
  // Asked for again: the same settled promise; close() stays harmless.
  expect(late.closed).toBe(late.closed);
  await within(late.close(), 5_000, 'second close');
  expect(order).toEqual(['callback 1', 'callback 2', 'closed']);
});

test('closed, first asked for once teardown is over, is settled', async () => {
  const [a, b] = createMemoryPair();
  const connection = new Connection(a);
  connection.begin();
  const tornDown = new Promise<void>((resolve) => connection.onClose(resolve));
  await within(new Connection(b).close(), 5_000, 'peer close');
  await within(tornDown, 5_000, 'teardown');
  await within(connection.closed, 5_000, 'closed asked for after teardown');
});

test('closed asked for before begin() settles once the connection is closed', async () => {
  const [a] = createMemoryPair();
  const connection = new Connection(a);
  const closed = connection.closed;
  let settled = false;
  void closed.then(() => (settled = true));
  // One callback is kept without an array, the rest in one: each runs once, in order.
  const ran: number[] = [];
  for (const n of [1, 2, 3]) connection.onClose(() => void ran.push(n));
  await Promise.resolve();
  expect(settled).toBe(false);
  connection.begin();
  await within(connection.close(), 5_000, 'close');
  expect(settled).toBe(true);
  expect(ran).toEqual([1, 2, 3]);
  expect(connection.closed).toBe(closed);
  connection.onClose(() => void ran.push(4)); // after close: at once
  expect(ran).toEqual([1, 2, 3, 4]);
});

/** A transport whose writes fail, as a peer that went away mid-write. */
class FailingTransport extends MemoryTransport {
  override send(_message: JsonRpcMessage): Promise<void> {
    return Promise.reject(new Error('EPIPE'));
  }
}

test('a failed write is reported to the logger of its own connection, for connections sharing or not a logger', async () => {
  const lines = (name: string, into: string[]): Logger => ({
    debug: (message) => void into.push(`${name}: ${message}`),
    error: (message) => void into.push(`${name} error: ${message}`),
  });
  const one: string[] = [];
  const two: string[] = [];
  const shared = lines('one', one);
  const connections = [shared, shared, lines('two', two)].map((logger) => {
    const transport = new FailingTransport();
    MemoryTransport.link(transport, new MemoryTransport());
    const connection = new Connection(transport, { logger });
    connection.begin();
    return connection;
  });
  await Promise.all(connections.map((c) => c.notify('notifications/message', { level: 'info', data: 'x' })));
  expect(one).toEqual(['one: dropped a write: transport failed', 'one: dropped a write: transport failed']);
  expect(two).toEqual(['two: dropped a write: transport failed']);
  await Promise.all(connections.map((c) => within(c.close(), 5_000, 'close')));
});

/** A transport whose read side fails in one of the ways an iterator can. */
function brokenReader(failure: 'rejects' | 'throws' | 'not an object'): Transport {
  let closed = 0;
  return {
    writable: true,
    send: () => Promise.resolve(),
    close: () => {
      closed++;
      return Promise.resolve();
    },
    get closeCount() {
      return closed;
    },
    [Symbol.asyncIterator]: () => ({
      next: (): Promise<IteratorResult<unknown>> => {
        if (failure === 'throws') throw new Error('read broke');
        if (failure === 'rejects') return Promise.reject(new Error('read broke'));
        return Promise.resolve(null as unknown as IteratorResult<unknown>);
      },
    }),
  } as Transport;
}

for (const failure of ['rejects', 'throws', 'not an object'] as const) {
  test(`a read that ${failure} ends in the one teardown, reported at debug level, nothing unhandled`, async () => {
    const logs: string[] = [];
    const transport = brokenReader(failure);
    const connection = new Connection(transport, {
      logger: {
        debug: (message) => void logs.push(message),
        error: (message) => void logs.push(`error: ${message}`),
      },
    });
    let callbacks = 0;
    connection.onClose(() => callbacks++);
    await within(connection.start(), 5_000, 'closed');
    expect(connection.isOpen).toBe(false);
    expect(callbacks).toBe(1);
    expect((transport as unknown as { closeCount: number }).closeCount).toBe(1);
    expect(logs).toEqual(['transport read failed']);
    await expect(connection.request('ping')).rejects.toBeInstanceOf(ConnectionClosedError);
  });
}
