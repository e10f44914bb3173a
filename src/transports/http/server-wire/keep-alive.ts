/**
 * One interval timer for the keep-alive comments of every open SSE stream of a handler.
 */
import { unrefTimer } from '../../../core/timers.js';

/** Anything that can take an SSE comment. */
export interface Commentable {
  comment(text: string): void;
}

/**
 * Runs only while a stream is open and never keeps the process alive.
 *
 * @example
 * const keepAlive = new KeepAlive(15_000);
 * keepAlive.add(writer); // `: keep-alive` every 15 s until `keepAlive.delete(writer)`
 */
export class KeepAlive {
  private readonly writers = new Set<Commentable>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly intervalMs: number) {}

  add(writer: Commentable): void {
    this.writers.add(writer);
    if (this.timer === undefined) {
      this.timer = unrefTimer(setInterval(tick, this.intervalMs, this.writers));
    }
  }

  delete(writer: Commentable): void {
    this.writers.delete(writer);
    if (this.writers.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function tick(writers: Set<Commentable>): void {
  for (const writer of writers) writer.comment('keep-alive');
}
