import type { PollableIterator } from './transport.js';

/**
 * A single-consumer async queue: the read side of every Keel transport.
 *
 * Unlike an async generator, `return()` settles a pending `next()` at once, which is what lets the
 * engine stop reading immediately on a local close.
 *
 * @example
 * const inbox = new Inbox<unknown>();
 * inbox.push({ jsonrpc: '2.0', method: 'ping', id: 1 });
 * inbox.end();
 * for await (const m of inbox) console.log(m);
 */
export class Inbox<T> implements AsyncIterable<T>, PollableIterator<T> {
  private readonly items: T[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;

  /** True once `end()` or `return()` was called. */
  get done(): boolean {
    return this.ended;
  }

  /** Queue an item; ignored after `end()`. */
  push(item: T): void {
    if (this.ended) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** End the stream. Already queued items are still delivered. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    const queued = this.poll();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** The next queued item, `{ done: true }` once ended and empty, or undefined if `next()` would wait. */
  poll(): IteratorResult<T> | undefined {
    if (this.head < this.items.length) {
      const value = this.items[this.head] as T;
      this.items[this.head++] = undefined as T;
      if (this.head === this.items.length) {
        this.items.length = 0;
        this.head = 0;
      }
      return { value, done: false };
    }
    return this.ended ? { value: undefined, done: true } : undefined;
  }

  /** Stop reading now: drop queued items and settle a pending `next()`. */
  return(): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.head = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): PollableIterator<T> {
    return this;
  }
}
