/**
 * Guarantee 15: shutdown is ordered (stop reading → abort handlers → fail pending → shutdown
 * answers → close the write side → callbacks → `closed`) and idempotent; and (issue 9 item 14)
 * every step is contained: a transport, logger or callback that throws cannot keep `closed` from
 * settling or a callback from running once.
 */
import { expect, test } from 'vitest';
import {
  Connection,
  type Logger,
  ConnectionClosedError,
  type JsonRpcMessage,
  type SendOptions,
} from 'keel-mcp/core';
import { MemoryTransport } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { RecordingTransport } from '../helpers/recording-transport.js';
import { deferred, RawPeer } from './support/raw-peer.js';

useProcessGuard();

/** Records each step the engine takes on the transport, with the connection's counts at that time. */
class StepTransport extends RecordingTransport {
  readonly steps: string[] = [];
  closes = 0;
  connection: Connection | undefined;

  private counts(): string {
    return `inflight=${this.connection?.inflightCount} pending=${this.connection?.pendingCount}`;
  }

  override [Symbol.asyncIterator](): AsyncIterator<unknown> {
    const inner = super[Symbol.asyncIterator]();
    return {
      next: () => inner.next(),
      return: () => {
        this.steps.push(`stop reading (${this.counts()})`);
        return inner.return!();
      },
    };
  }

  override send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if ('error' in message) this.steps.push(`answer ${String(message.id)} (${this.counts()})`);
    return super.send(message, options);
  }

  override close(): Promise<void> {
    this.closes++;
    this.steps.push('close transport');
    return super.close();
  }
}

test('close runs its steps in order, once; a second close is harmless and onClose fires once', async () => {
  const local = new StepTransport();
  const remote = new RecordingTransport();
  MemoryTransport.link(local, remote);
  const connection = new Connection(local);
  local.connection = connection;
  const steps = local.steps;
  const started = deferred();
  connection.setRequestHandler('wait', (_p, ctx) => {
    ctx.signal.addEventListener('abort', () =>
      steps.push(`abort handler (pending=${connection.pendingCount} writable=${local.writable})`),
    );
    started.resolve();
    return new Promise(() => undefined); // never settles by itself
  });
  const closed = connection.start();
  const peer = new RawPeer(remote);
  const pending = connection.request('slow', {}).catch((error: unknown) => error);
  await peer.read('the outbound request');
  await peer.request('wait', {}, 1);
  await within(started.promise, 5_000, 'handler start');
  let callbacks = 0;
  connection.onClose(() => {
    callbacks++;
    steps.push('onClose');
  });
  void closed.then(() => steps.push('closed'));

  const first = connection.close();
  const second = connection.close();
  await within(first, 5_000, 'closed');
  await second;
  await connection.close(); // after the end too

  expect(steps).toEqual([
    'stop reading (inflight=1 pending=1)',
    'abort handler (pending=1 writable=true)',
    'answer 1 (inflight=0 pending=0)',
    'close transport',
    'onClose',
    'closed',
  ]);
  expect(await pending).toBeInstanceOf(ConnectionClosedError);
  expect(callbacks).toBe(1);
  expect(local.closes).toBe(1);
  let late = 0;
  connection.onClose(() => late++); // registered after the end: runs at once, once
  expect(late).toBe(1);
});

/** Everything that can throw at teardown does. */
class FaultyTransport extends RecordingTransport {
  get answerOnClose(): boolean {
    throw new Error('answerOnClose getter failed');
  }
  override [Symbol.asyncIterator](): AsyncIterator<unknown> {
    const inner = super[Symbol.asyncIterator]();
    return {
      next: () => inner.next(),
      return: () => {
        throw new Error('return failed');
      },
    };
  }
  override send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if ('error' in message) throw new Error('send failed');
    return super.send(message, options);
  }
  override close(): Promise<void> {
    void super.close();
    throw new Error('close failed');
  }
}

test('issue 9 item 14: a throwing transport, logger and callback cannot keep closed from settling', async () => {
  const local = new FaultyTransport();
  const remote = new RecordingTransport();
  MemoryTransport.link(local, remote);
  const throwing: Logger = {
    debug() {
      throw new Error('logger debug failed');
    },
    error() {
      throw new Error('logger error failed');
    },
  };
  const connection = new Connection(local, { logger: throwing });
  const started = deferred();
  connection.setRequestHandler('wait', () => {
    started.resolve();
    return new Promise(() => undefined);
  });
  const closed = connection.start();
  const peer = new RawPeer(remote);
  const pending = connection.request('slow', {}).catch((error: unknown) => error);
  await peer.read('the outbound request');
  await peer.request('wait', {}, 1);
  await within(started.promise, 5_000, 'handler start');
  const calls: string[] = [];
  connection.onClose(() => {
    calls.push('first');
    throw new Error('callback failed');
  });
  connection.onClose(() => calls.push('second'));

  await within(connection.close(), 5_000, 'closed despite the faults');
  await within(closed, 5_000, 'start() promise');

  expect(calls).toEqual(['first', 'second']);
  expect(await pending).toBeInstanceOf(ConnectionClosedError);
  expect(connection.isOpen).toBe(false);
  expect(connection.inflightCount).toBe(0);
});
