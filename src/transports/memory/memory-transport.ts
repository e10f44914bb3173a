/**
 * An in-memory transport pair, for tests and for embedding a server and client in one process.
 * Messages are passed as objects (no serialisation), in order.
 */
import { ConnectionClosedError } from '../../core/errors.js';
import { Inbox } from '../../core/inbox.js';
import type { JsonRpcMessage } from '../../core/jsonrpc.js';
import type { SendOptions, Transport } from '../../core/transport.js';

/**
 * One end of an in-memory pair. Besides the {@link Transport} contract it offers two fault
 * injections used by the lifecycle tests: {@link endInput} (the read side hits EOF while the write
 * side stays open, as with stdin) and {@link breakOutput} (writes start failing, as with EPIPE).
 *
 * @example
 * const [clientSide, serverSide] = createMemoryPair();
 */
export class MemoryTransport implements Transport {
  private readonly inbox = new Inbox<unknown>();
  private peer: MemoryTransport | undefined;
  private outputBroken: Error | undefined;
  private closedLocally = false;
  lastError: unknown;

  /** @internal */
  static link(a: MemoryTransport, b: MemoryTransport): void {
    a.peer = b;
    b.peer = a;
  }

  get writable(): boolean {
    return !this.closedLocally && this.outputBroken === undefined && !!this.peer && !this.peer.inbox.done;
  }

  // `_options` keeps the Transport signature, so subclasses (test recorders) can override it.
  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    if (!this.writable) {
      const error = this.outputBroken ?? new ConnectionClosedError('Memory transport is closed');
      return Promise.reject(error);
    }
    this.peer!.inbox.push(message);
    return Promise.resolve();
  }

  /**
   * Simulate EOF on this end's read side; writing keeps working. With `error`, the read side
   * failed (a child crashed, a socket reset): it becomes {@link lastError}.
   */
  endInput(error?: unknown): void {
    if (error !== undefined) this.lastError = error;
    this.inbox.end();
  }

  /** Make every later write fail with `error` (EPIPE-like). */
  breakOutput(error: Error = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })): void {
    this.outputBroken = error;
    this.lastError = error;
  }

  close(): Promise<void> {
    if (this.closedLocally) return Promise.resolve();
    this.closedLocally = true;
    void this.inbox.return();
    this.peer?.inbox.end();
    return Promise.resolve();
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return this.inbox;
  }
}

/**
 * Two linked transports: what one sends, the other reads. Closing one ends the other's input.
 *
 * @example
 * const [clientTransport, serverTransport] = createMemoryPair();
 * void server.connect(serverTransport);
 * const client = await McpClient.connect(clientTransport);
 */
export function createMemoryPair(): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  MemoryTransport.link(a, b);
  return [a, b];
}
