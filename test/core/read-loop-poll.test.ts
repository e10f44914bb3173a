/**
 * Issue 14: the engine's read loop takes the messages a transport already holds with `poll()`
 * (the lines of one stdio chunk), one `next()` per burst rather than per message, and still routes
 * them in order; a transport whose iterator has no `poll()` is read with `next()` alone.
 */
import { expect, test } from 'vitest';
import { Connection, type JsonRpcMessage, type Transport } from 'keel-mcp/core';
import { Inbox } from '../../src/core/inbox.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

class InboxTransport implements Transport {
  readonly inbox = new Inbox<unknown>();
  readonly sent: JsonRpcMessage[] = [];
  nextCalls = 0;
  writable = true;
  constructor(private readonly pollable: boolean) {}
  send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message);
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.writable = false;
    void this.inbox.return();
    return Promise.resolve();
  }
  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    const inbox = this.inbox;
    const next = (): Promise<IteratorResult<unknown>> => {
      this.nextCalls++;
      return inbox.next();
    };
    const iterator: AsyncIterator<unknown> & { poll?: () => IteratorResult<unknown> | undefined } = {
      next,
      return: () => inbox.return(),
    };
    if (this.pollable) iterator.poll = () => inbox.poll();
    return iterator;
  }
}

async function burst(pollable: boolean): Promise<{ ids: unknown[]; nextCalls: number }> {
  const transport = new InboxTransport(pollable);
  const connection = new Connection(transport);
  connection.setRequestHandler('echo', (params) => params ?? {});
  for (let id = 1; id <= 50; id++)
    transport.inbox.push({ jsonrpc: '2.0', id, method: 'echo', params: { id } });
  void connection.start();
  await new Promise((resolve) => setTimeout(resolve, 10));
  const ids = transport.sent.map((message) => (message as { id?: unknown }).id);
  const nextCalls = transport.nextCalls;
  await connection.close();
  return { ids, nextCalls };
}

test('a burst already queued is taken with poll(), in order, with one next() for what follows', async () => {
  const { ids, nextCalls } = await burst(true);
  expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(nextCalls).toBe(1);
});

test('without poll() the same burst is read with a next() per message', async () => {
  const { ids, nextCalls } = await burst(false);
  expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(nextCalls).toBe(51);
});
