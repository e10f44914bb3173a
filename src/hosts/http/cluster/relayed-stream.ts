/**
 * The forwarder's side of a relayed SSE body: chunks from the owner, written to this process's
 * client under the same output budget as a local stream (a client that stops reading is cut).
 */
import type { Budgeted, OutputBudget } from '../../../transports/http/server-wire/output-budget.js';
import type { SseSink, SseSource } from '../../../transports/http/server-wire/types.js';

/**
 * An event stream whose text arrives over the relay. Chunks that come before the host attached
 * its sink wait in order; `onClientGone` runs once when the client left or was cut.
 *
 * @example
 * const stream = new RelayedStream(budget, () => relay.send(owner, gone));
 * resolve({ status: 200, headers, body: stream });
 * // per `data` message: stream.data(text); on `end`: stream.end();
 */
export class RelayedStream implements SseSource, Budgeted {
  private sink: SseSink | undefined;
  private pending: string[] | undefined = [];
  private finished: 'end' | 'abort' | undefined;
  private open = true;

  constructor(
    private readonly budget: OutputBudget,
    private readonly onClientGone: () => void,
  ) {}

  attach(sink: SseSink): void {
    const pending = this.pending ?? [];
    this.pending = undefined;
    this.sink = sink;
    for (const text of pending) if (!this.deliver(text)) return;
    if (this.finished === 'end') sink.end();
    else if (this.finished === 'abort') sink.abort();
  }

  /** One chunk from the owner. */
  data(text: string): void {
    if (!this.open) return;
    if (this.sink) this.deliver(text);
    else this.pending!.push(text);
  }

  /** The owner ended the body. */
  end(): void {
    this.finish('end');
  }

  /** The owner aborted the body, or the owner is gone: the client sees a cut stream. */
  abort(): void {
    this.finish('abort');
  }

  /** The client stopped reading: abort its response and tell the owner. */
  cut(): void {
    if (!this.open) return;
    this.finish('abort');
    this.onClientGone();
  }

  /** The client went away on its own. */
  gone(): void {
    if (!this.open) return;
    this.open = false;
    this.budget.remove(this);
    this.pending = undefined;
    this.onClientGone();
  }

  queuedNow(): number {
    return this.sink?.queued() ?? 0;
  }

  private finish(how: 'end' | 'abort'): void {
    if (!this.open) return;
    this.open = false;
    this.budget.remove(this);
    if (!this.sink) {
      this.finished = how;
      return;
    }
    if (how === 'end') this.sink.end();
    else this.sink.abort();
  }

  /** As `SseWriter`: false once the client counts as gone (left, or cut for not reading). */
  private deliver(text: string): boolean {
    const backlog = this.sink!.write(text);
    if (backlog === Number.POSITIVE_INFINITY) {
      this.gone();
      return false;
    }
    if (!this.open) return true;
    if (backlog > this.budget.perStream) {
      this.cut();
      return false;
    }
    return this.budget.update(this, this.sink!.queued());
  }
}
