/**
 * The read side of the stdio server transport: the core `Inbox`, plus a count of the input bytes
 * it holds, so the reader can stop reading stdin while the engine is not taking messages.
 */

import { Inbox } from '../../core/inbox.js';

/**
 * An {@link Inbox} of parsed messages with their size on the wire. `bufferedBytes` counts what was
 * read and parsed but not yet taken by the consumer; `onChange` is told after every push and every
 * take. The queue itself is the core one: this class keeps only the sizes, in a parallel array
 * indexed by the positions the core queue reports (no object per message).
 *
 * @example
 * const inbox = new MeteredInbox(() => console.error(inbox.bufferedBytes));
 * inbox.push({ jsonrpc: '2.0', id: 1, method: 'ping' }, 40);
 * inbox.end();
 * for await (const message of inbox) console.log(message);
 */
export class MeteredInbox extends Inbox<unknown> {
  private readonly sizes: number[] = [];
  private bytes = 0;

  constructor(private readonly onChange: () => void = noop) {
    super();
  }

  /** Bytes of the messages queued and not yet taken. */
  get bufferedBytes(): number {
    return this.bytes;
  }

  /** Queue a message read as `bytes` bytes; ignored after `end()`. */
  override push(item: unknown, bytes = 0): void {
    // Taken at once (or refused after end): it never counts as buffered.
    if (!this.enqueue(item)) return;
    this.sizes.push(bytes);
    this.bytes += bytes;
    this.onChange();
  }

  protected override taken(index: number): void {
    const sizes = this.sizes;
    this.bytes -= sizes[index] as number;
    // The last one queued was taken: the core queue is empty and counts from 0 again.
    if (index === sizes.length - 1) sizes.length = 0;
    this.onChange();
  }

  /** Stop reading now: drop queued messages and settle a pending `next()`. */
  override return(): Promise<IteratorResult<unknown>> {
    this.sizes.length = 0;
    this.bytes = 0;
    return super.return();
  }
}

function noop(): void {}
