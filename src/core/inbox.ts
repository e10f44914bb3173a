import type { PollableIterator } from './transport.js';

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/**
 * A single-consumer async queue: the read side of every Keel transport.
 *
 * Unlike an async generator, `return()` settles a pending `next()` at once, which is what lets the
 * engine stop reading immediately on a local close.
 *
 * This is the one queue of the code base: the stdio server's `MeteredInbox` extends it and only
 * counts bytes, through the two protected hooks (`enqueue`, `taken`). They are plain methods, not
 * callbacks, so the read path makes no closure and no allocation for them.
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

  /** Number of items queued and not yet taken. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Queue an item; ignored after `end()`. */
  push(item: T): void {
    this.enqueue(item);
  }

  /**
   * Hand `item` to a pending `next()`, or queue it. True only when it was queued (an item taken
   * at once, or refused after `end()`, never waited).
   * @internal for subclasses that keep figures per queued item
   */
  protected enqueue(item: T): boolean {
    if (this.ended) return false;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: item, done: false });
      return false;
    }
    this.items.push(item);
    return true;
  }

  /** End the stream. Already queued items are still delivered. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(DONE);
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
      const index = this.head++;
      const value = this.items[index] as T;
      this.items[index] = undefined as T;
      if (this.head === this.items.length) {
        this.items.length = 0;
        this.head = 0;
      }
      this.taken(index);
      return { value, done: false };
    }
    return this.ended ? DONE : undefined;
  }

  /**
   * Called after each take with the item's position among those queued since the queue was last
   * empty (the n-th `enqueue` that returned true, from 0). Once the last of them is taken the
   * queue is empty and positions start from 0 again.
   * @internal for subclasses that keep figures per queued item
   */
  protected taken(_index: number): void {}

  /** Stop reading now: drop queued items and settle a pending `next()`. */
  return(): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.head = 0;
    this.end();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): PollableIterator<T> {
    return this;
  }
}
