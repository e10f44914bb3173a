/**
 * The in-flight table's entries: one inbound request being handled.
 */
import type { RequestId } from '../jsonrpc.js';

/** Something tied to a request's lifetime that must end when the request is aborted. */
export interface AbortWatcher {
  parentAborted(reason: unknown): void;
}

/**
 * One inbound request. The `AbortController` is created only when the handler reads its signal:
 * most handlers never do, and the hot path should not pay for it.
 */
export class InflightRequest {
  private controller: AbortController | undefined;
  private reason: unknown;
  /** Nested requests made by the handler: cheaper than tying each to `signal`. */
  private watchers: Set<AbortWatcher> | undefined;
  /** A response (result, error or shutdown error) was written or deliberately withheld. */
  answered = false;
  /** The peer cancelled it: nothing more may be written for it. */
  cancelled = false;
  /** The handler settled; its context is dead. */
  ended = false;
  /** Accepted but waiting for a free handler slot (`maxInflight`); no handler has run. */
  queued = false;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly progressToken: string | number | undefined,
    /** The outbound request this one was sent for by the peer, if the transport knows it. */
    readonly relatedOutbound?: RequestId,
  ) {}

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  /** Why it was aborted (undefined while it was not). */
  get abortReason(): unknown {
    return this.reason;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Abort once; later calls keep the first reason (the first cause is the true one). */
  abort(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
    const watchers = this.watchers;
    if (!watchers) return;
    this.watchers = undefined;
    for (const watcher of watchers) watcher.parentAborted(reason);
  }

  /** Tell `watcher` when this request is aborted (at once if it already was). */
  watch(watcher: AbortWatcher): void {
    if (this.reason !== undefined) watcher.parentAborted(this.reason);
    else (this.watchers ??= new Set()).add(watcher);
  }

  unwatch(watcher: AbortWatcher): void {
    this.watchers?.delete(watcher);
  }
}
