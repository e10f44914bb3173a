/**
 * The in-flight table's entries: one inbound request being handled.
 */
import type { RequestId } from '../jsonrpc.js';

/**
 * One inbound request. The `AbortController` is created only when the handler reads its signal:
 * most handlers never do, and the hot path should not pay for it.
 */
export class InflightRequest {
  private controller: AbortController | undefined;
  private abortReason: unknown;
  /** A response (result, error or shutdown error) was written or deliberately withheld. */
  answered = false;
  /** The peer cancelled it: nothing more may be written for it. */
  cancelled = false;
  /** The handler settled; its context is dead. */
  ended = false;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly progressToken: string | number | undefined,
  ) {}

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Abort once; later calls keep the first reason (the first cause is the true one). */
  abort(reason: unknown): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}
