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
  /**
   * Nested requests made by the handler: cheaper than tying each to `signal`. One at a time (a
   * tool awaiting its sampling request) needs no Set: `watcher` holds it. A second one moves both
   * into `watchers`, which is then kept, so they are told in the order they came, as before.
   */
  private watcher: AbortWatcher | undefined;
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
    const only = this.watcher;
    const watchers = this.watchers;
    this.watcher = undefined;
    this.watchers = undefined;
    if (only) only.parentAborted(reason);
    if (watchers) for (const watcher of watchers) watcher.parentAborted(reason);
  }

  /** Tell `watcher` when this request is aborted (at once if it already was). */
  watch(watcher: AbortWatcher): void {
    if (this.reason !== undefined) watcher.parentAborted(this.reason);
    else if (this.watchers) this.watchers.add(watcher);
    else if (this.watcher === undefined) this.watcher = watcher;
    else if (this.watcher !== watcher) {
      this.watchers = new Set([this.watcher, watcher]);
      this.watcher = undefined;
    }
  }

  unwatch(watcher: AbortWatcher): void {
    if (this.watcher === watcher) this.watcher = undefined;
    else this.watchers?.delete(watcher);
  }
}
