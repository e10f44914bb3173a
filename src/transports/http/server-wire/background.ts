/**
 * Work the handler goes on doing after it has returned its `Response`, announced to the host.
 *
 * A Cloudflare Worker's isolate may stop once its `fetch` has answered, unless the unfinished work
 * is handed to `ctx.waitUntil(promise)`. The Streamable HTTP handler detaches work in a few places
 * (a 202 whose message the engine has not read yet, a stateless connection's teardown after its
 * answer, a handler still running when its stream closed, shared-store writes): each is handed to
 * the request's `waitUntil`, when the host gave one. Node, Bun and Deno keep running: no context,
 * nothing changes.
 */
import type { Inbox } from '../../../core/inbox.js';

/**
 * What a host passes to keep the runtime alive for work that outlives the response: a Cloudflare
 * Workers `ExecutionContext` as it is (the third argument of `fetch`, Hono's `c.executionCtx`).
 *
 * @example
 * export default {
 *   fetch: (request: Request, env: unknown, ctx: WaitUntilContext) => handler(request, ctx),
 * };
 */
export interface WaitUntilContext {
  /**
   * Keep the runtime alive until `promise` settles. Keel never passes a promise that rejects.
   * Called as a method (`ctx.waitUntil(p)`): a Workers `ExecutionContext` needs its `this`.
   */
  waitUntil?(promise: Promise<unknown>): void;
}

/** Hands one detached piece of work to the host; see {@link backgroundOf}. */
export type Detach = (work: Promise<unknown> | undefined) => void;

const ignore = (): void => {};

/**
 * The request's `waitUntil` as a {@link Detach}, or undefined when there is none. Read once, at
 * the start of a request: later copies of the per-request extra (`{ ...extra, authInfo }`) drop a
 * method that lives on a prototype, as the Workers `ExecutionContext`'s does.
 *
 * @example
 * const detach = backgroundOf(extra);
 * detach?.(transport.session?.closed);
 */
export function backgroundOf(context: WaitUntilContext | undefined): Detach | undefined {
  if (typeof context?.waitUntil !== 'function') return undefined;
  return (work) => {
    if (!work) return;
    // Settled quietly: what Keel detaches reports its own failures; a rejection here would be an
    // unhandled one in the host.
    const settled = work.then(ignore, ignore);
    try {
      context.waitUntil!(settled);
    } catch {
      // A host that refuses (Workers throws once the request's context is over) must not throw
      // into the handler that detached: the work runs on regardless, it just is not kept alive.
    }
  };
}

/**
 * Who waits for which request stream to end; each waiter gets the store writes that the end
 * caused (to wait for them too).
 *
 * @example
 * const waiters = new EndWaiters();
 * const done = waiters.wait(stream);
 * waiters.ended(stream, storeWrite); // done resolves once storeWrite has
 */
export class EndWaiters {
  private readonly waiters = new Map<object, (after?: Promise<unknown>) => void>();

  wait(key: object): Promise<unknown> {
    return new Promise((resolve) => this.waiters.set(key, resolve));
  }

  ended(key: object, after?: Promise<unknown>): void {
    const waiter = this.waiters.get(key);
    if (!waiter) return;
    this.waiters.delete(key);
    waiter(after);
  }

  /** Release every waiter (the transport closed), after `after`. */
  endAll(after?: Promise<unknown>): void {
    for (const waiter of this.waiters.values()) waiter(after);
    this.waiters.clear();
  }
}

/** The writes that are asynchronous, as one promise (undefined when there is none). */
export function allOf(writes: readonly (Promise<unknown> | undefined)[]): Promise<unknown> | undefined {
  const pending = writes.filter((write) => write !== undefined);
  return pending.length === 0 ? undefined : pending.length === 1 ? pending[0] : Promise.all(pending);
}

/**
 * Tells when the engine has read a message pushed to a transport's inbox. The engine reads one
 * message per `next()` and routes it (a notification's handler is called, a response settles its
 * request) before it asks for the next one, so the n-th `next()` call means n - 1 messages were
 * routed.
 *
 * @example
 * const reads = new ReadTracker();
 * reads.pushed(); const routed = reads.routed();
 * reads.pulled(); reads.pulled(); // routed resolves
 */
export class ReadTracker {
  private pushes = 0;
  private pulls = 0;
  private waiters: { seq: number; resolve: () => void }[] | undefined;

  /** A message was queued for the engine. */
  pushed(): void {
    this.pushes++;
  }

  /** The engine asks for the next message: every message it got before has been routed. */
  pulled(): void {
    const routed = this.pulls++;
    const waiters = this.waiters;
    if (!waiters || waiters[0]!.seq > routed) return;
    this.waiters = waiters.filter((waiter) => waiter.seq > routed);
    if (this.waiters.length === 0) this.waiters = undefined;
    for (const waiter of waiters) if (waiter.seq <= routed) waiter.resolve();
  }

  /** Resolves once the message queued last has been routed (or {@link settleAll}). */
  routed(): Promise<void> {
    const seq = this.pushes;
    if (seq <= Math.max(0, this.pulls - 1)) return Promise.resolve();
    return new Promise((resolve) => (this.waiters ??= []).push({ seq, resolve }));
  }

  /** The inbox ended: nothing more will be routed, release every waiter. */
  settleAll(): void {
    const waiters = this.waiters;
    this.waiters = undefined;
    if (waiters) for (const waiter of waiters) waiter.resolve();
  }
}

/**
 * A transport's read side as the engine sees it: the inbox's iterator, counting the engine's
 * reads (see {@link ReadTracker}). One object with prototype methods, where an iterator literal
 * would hold two closures per session (memory per idle HTTP session).
 *
 * @example
 * const reader = new TrackedReader(inbox);
 * const routed = (reader.pushed(), reader.routed());
 * await reader.next(); await reader.next(); // routed resolves
 */
export class TrackedReader<T> extends ReadTracker implements AsyncIterator<T> {
  constructor(private readonly inbox: Inbox<T>) {
    super();
  }

  next(): Promise<IteratorResult<T>> {
    this.pulled();
    return this.inbox.next();
  }

  return(): Promise<IteratorResult<T>> {
    return this.inbox.return();
  }
}
