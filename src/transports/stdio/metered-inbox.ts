/**
 * The read side of the stdio server transport: a single-consumer queue, like the core `Inbox`,
 * that also knows how many input bytes it holds, so the reader can stop reading stdin while the
 * engine is not taking messages.
 */

import type { PollableIterator } from '../../core/transport.js';

const DONE: IteratorResult<unknown> = { value: undefined, done: true };

/**
 * A FIFO of parsed messages with their size on the wire. `bufferedBytes` counts what was read and
 * parsed but not yet taken by the consumer; `onChange` is told after every push and every take.
 *
 * @example
 * const inbox = new MeteredInbox(() => console.error(inbox.bufferedBytes));
 * inbox.push({ jsonrpc: '2.0', id: 1, method: 'ping' }, 40);
 * inbox.end();
 * for await (const message of inbox) console.log(message);
 */
export class MeteredInbox implements AsyncIterable<unknown>, PollableIterator<unknown> {
  private items: unknown[] = [];
  private sizes: number[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<unknown>) => void) | undefined;
  private ended = false;
  private bytes = 0;

  constructor(private readonly onChange: () => void = noop) {}

  /** Bytes of the messages queued and not yet taken. */
  get bufferedBytes(): number {
    return this.bytes;
  }

  /** Number of messages queued and not yet taken. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** True once `end()` or `return()` was called. */
  get done(): boolean {
    return this.ended;
  }

  /** Queue a message read as `bytes` bytes; ignored after `end()`. */
  push(item: unknown, bytes = 0): void {
    if (this.ended) return;
    const waiter = this.waiter;
    if (waiter) {
      // Taken at once: it never counts as buffered.
      this.waiter = undefined;
      waiter({ value: item, done: false });
      return;
    }
    this.items.push(item);
    this.sizes.push(bytes);
    this.bytes += bytes;
    this.onChange();
  }

  /** End the stream. Already queued messages are still delivered. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(DONE);
    }
  }

  next(): Promise<IteratorResult<unknown>> {
    const queued = this.poll();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** The next queued message, `DONE` once ended and empty, or undefined if `next()` would wait. */
  poll(): IteratorResult<unknown> | undefined {
    if (this.head < this.items.length) {
      const value = this.items[this.head];
      this.bytes -= this.sizes[this.head] as number;
      this.items[this.head++] = undefined;
      if (this.head === this.items.length) {
        this.items.length = 0;
        this.sizes.length = 0;
        this.head = 0;
      }
      this.onChange();
      return { value, done: false };
    }
    return this.ended ? DONE : undefined;
  }

  /** Stop reading now: drop queued messages and settle a pending `next()`. */
  return(): Promise<IteratorResult<unknown>> {
    this.items = [];
    this.sizes = [];
    this.head = 0;
    this.bytes = 0;
    this.end();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): PollableIterator<unknown> {
    return this;
  }
}

function noop(): void {}
