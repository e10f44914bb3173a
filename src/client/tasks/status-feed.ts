/**
 * The status changes of one task handed to any number of `for await` readers. Each reader keeps
 * its own short queue (bounded: a reader that never reads loses the oldest changes, never the
 * last); a reader that stops early (`break`) is forgotten at once.
 */
import type { TaskInfo } from './task-info.js';

/** Changes a reader may have unread before the oldest go (the last one always stays). */
const MAX_UNREAD = 64;

interface Reader {
  queue: TaskInfo[];
  waiting: ((result: IteratorResult<TaskInfo>) => void) | undefined;
  ended: boolean;
}

/**
 * @example
 * const feed = new StatusFeed();
 * const reader = feed.subscribe(task);
 * feed.push(next); feed.end();
 */
export class StatusFeed {
  private readonly readers = new Set<Reader>();
  private ended = false;

  push(task: TaskInfo): void {
    for (const reader of this.readers) {
      if (reader.waiting) {
        const resolve = reader.waiting;
        reader.waiting = undefined;
        resolve({ value: task, done: false });
      } else {
        reader.queue.push(task);
        if (reader.queue.length > MAX_UNREAD) reader.queue.shift();
      }
    }
  }

  end(): void {
    this.ended = true;
    for (const reader of this.readers) {
      reader.ended = true;
      if (reader.waiting) {
        const resolve = reader.waiting;
        reader.waiting = undefined;
        resolve({ value: undefined, done: true });
      }
    }
    this.readers.clear();
  }

  /** A reader that starts with `current`, then gets every change until the end. */
  subscribe(current: TaskInfo): AsyncIterableIterator<TaskInfo> {
    const reader: Reader = { queue: [current], waiting: undefined, ended: this.ended };
    if (!this.ended) this.readers.add(reader);
    const readers = this.readers;
    const iterator: AsyncIterableIterator<TaskInfo> = {
      next(): Promise<IteratorResult<TaskInfo>> {
        const value = reader.queue.shift();
        if (value !== undefined) return Promise.resolve({ value, done: false });
        if (reader.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (reader.waiting = resolve));
      },
      return(): Promise<IteratorResult<TaskInfo>> {
        reader.ended = true;
        reader.queue.length = 0;
        readers.delete(reader);
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }
}
