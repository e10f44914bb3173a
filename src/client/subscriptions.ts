/**
 * The client side of 2026-07-28 `subscriptions/listen`: a {@link Subscription} is an async iterable
 * of the change notifications the server agreed to send, with one end that says how it ended:
 * `graceful` (the server's final result: iteration completes), `closed` (this side closed it,
 * or closed the client: iteration completes) or `lost` (no final result: the transport dropped,
 * the server went away or refused the listen; iteration throws). Nothing re-listens on its own.
 */
import { CancelledByPeerError, ConnectionClosedError } from '../core/errors.js';
import type { JsonObject, RequestId } from '../core/jsonrpc.js';
import {
  SubscriptionMethod,
  type SubscriptionFilter,
  type SubscriptionsListenResult,
} from '../core/types/subscriptions.js';
import { SubscriptionOverflowError } from './errors.js';
import { keyOf, routerOf } from './subscription-router.js';
import {
  defaultMaxBuffered,
  type ListenHost,
  type ListenOptions,
  type SubscriptionEnd,
  type SubscriptionNotification,
} from './subscription-types.js';

export {
  DEFAULT_MAX_BUFFERED,
  type ListenHost,
  type ListenOptions,
  type SubscriptionEnd,
  type SubscriptionNotification,
} from './subscription-types.js';

/**
 * A live `subscriptions/listen`. Iterate it for the notifications; `close()` (or `break` out of
 * the loop) cancels it (stdio: `notifications/cancelled`; HTTP: the request's stream is closed).
 * Unread notifications wait in a buffer in which identical ones (same method and params) are kept
 * once: they signal "changed", and a consumer that has not read the first learns nothing from the
 * second. Past `maxBuffered` distinct unread ones (a consumer that stopped reading, a server that
 * sends what the filter does not cover) the subscription ends `lost` with
 * `SubscriptionOverflowError` and is cancelled: dropping some would hide a change for good. What
 * was buffered is still iterated before the error.
 *
 * @example
 * const subscription = client.listen({ toolsListChanged: true });
 * console.log(await subscription.acknowledged); // what the server agreed to send
 * for await (const note of subscription) await refreshTools();
 * console.log((await subscription.ended).reason); // 'graceful' | 'closed' | 'lost'
 */
export class Subscription implements AsyncIterable<SubscriptionNotification> {
  /** The subscription id (the listen request's JSON-RPC id); set once the request is sent. */
  id: RequestId | undefined;
  /** The filter the server agreed to honour (rejects if the subscription ended before that). */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** Settles (never rejects) once the subscription is over. */
  readonly ended: Promise<SubscriptionEnd>;
  private readonly buffer: SubscriptionNotification[] = [];
  private readonly buffered = new Set<string>();
  private readonly controller = new AbortController();
  private readonly maxBuffered: number;
  private end: SubscriptionEnd | undefined;
  private wake: (() => void) | undefined;
  /** The one live reader (see `[Symbol.asyncIterator]`). */
  private reader: object | undefined;
  /** Removes the abort listener from the caller's signal (which may outlive many subscriptions). */
  private detach: (() => void) | undefined;
  private ack!: { resolve(filter: SubscriptionFilter): void; reject(error: Error): void };
  private finish!: (end: SubscriptionEnd) => void;

  /** @internal Use `client.listen(...)` (or {@link listen}). */
  constructor(host: ListenHost, filter: SubscriptionFilter, options: ListenOptions = {}) {
    const { maxBuffered } = options;
    if (maxBuffered !== undefined && !(Number.isInteger(maxBuffered) && maxBuffered >= 1))
      throw new RangeError(`maxBuffered must be a positive integer, got ${String(maxBuffered)}`);
    this.acknowledged = new Promise((resolve, reject) => (this.ack = { resolve, reject }));
    this.acknowledged.catch(() => undefined); // read through `ended`; never unhandled
    this.ended = new Promise((resolve) => (this.finish = resolve));
    this.maxBuffered = maxBuffered ?? defaultMaxBuffered(filter);
    const outer = options.signal;
    if (outer?.aborted) this.controller.abort(outer.reason);
    else if (outer) {
      const onAbort = (): void => void this.close();
      outer.addEventListener('abort', onAbort, { once: true });
      this.detach = () => outer.removeEventListener('abort', onAbort);
    }
    const table = routerOf(host.connection);
    const params: JsonObject = { notifications: { ...filter } };
    if (options.meta !== undefined) params._meta = { ...options.meta };
    host
      .request(SubscriptionMethod.Listen, params, {
        signal: this.controller.signal,
        // Long-lived by design: no idle or total timeout.
        timeoutMs: Infinity,
        maxTotalTimeoutMs: Infinity,
        onRequestId: (id) => {
          // A client may send the listen again under a new id (a -32022 version retry).
          if (this.id !== undefined && table.get(this.id) === this) table.delete(this.id);
          this.id = id;
          table.set(id, this);
        },
      })
      .then(
        (result) => this.settle({ reason: 'graceful', result: result as SubscriptionsListenResult }),
        (error: unknown) =>
          this.settle(
            // Closing the client (or its connection) is the caller's own decision, like close():
            // only a drop, a dead server or a refusal is a loss.
            this.controller.signal.aborted ||
              (error instanceof ConnectionClosedError && host.connection.closedLocally)
              ? { reason: 'closed' }
              : {
                  reason: 'lost',
                  error: error instanceof Error ? error : new ConnectionClosedError(String(error)),
                },
          ),
      )
      .finally(() => {
        if (this.id !== undefined && table.get(this.id) === this) table.delete(this.id);
      });
  }

  /** Cancel the subscription; resolves with how it ended (`graceful` if the server ended it first). */
  close(): Promise<SubscriptionEnd> {
    if (this.end === undefined) this.controller.abort(new Error('Subscription closed by the client'));
    return this.ended;
  }

  /** @internal A notification tagged with this subscription's id. */
  receive(method: string, params: JsonObject): void {
    if (this.end !== undefined) return;
    if (method === 'notifications/cancelled') {
      this.serverCancelled(typeof params.reason === 'string' ? params.reason : undefined);
      return;
    }
    if (method === SubscriptionMethod.Acknowledged) {
      const honored = params.notifications;
      this.ack.resolve(typeof honored === 'object' && honored !== null ? honored : {});
      return;
    }
    const key = keyOf(method, params);
    if (this.buffered.has(key)) return;
    if (this.buffer.length >= this.maxBuffered) {
      this.settle({ reason: 'lost', error: new SubscriptionOverflowError(this.maxBuffered) });
      this.controller.abort(new Error('Subscription buffer overflow'));
      return;
    }
    this.buffered.add(key);
    this.buffer.push({ method, params });
    this.wakeReader();
  }

  /**
   * One reader at a time: each notification is read once, so a second loop running beside the
   * first would silently miss what the first takes. Asking for a second iterator while one is
   * live (and the subscription is not over) throws a `TypeError` at once; once the first loop
   * ends (or the subscription is over) another may read what is left.
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<SubscriptionNotification> {
    if (this.reader !== undefined && this.end === undefined) {
      throw new TypeError(
        'This subscription already has a reader: iterate it in one loop (each notification is read once)',
      );
    }
    const reader = {};
    this.reader = reader;
    const release = (): void => {
      if (this.reader === reader) this.reader = undefined;
    };
    const generator = this.read(release);
    return {
      next: () => generator.next(),
      // Also for a reader given up before its first `next()`, whose generator body never ran.
      return: (value?: unknown) => {
        release();
        return generator.return(value as undefined);
      },
      throw: (error?: unknown) => {
        release();
        return generator.throw(error);
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  private async *read(release: () => void): AsyncGenerator<SubscriptionNotification, void, undefined> {
    try {
      for (;;) {
        const next = this.buffer.shift();
        if (next !== undefined) {
          this.buffered.delete(keyOf(next.method, next.params));
          yield next;
          continue;
        }
        const end = this.end;
        if (end !== undefined) {
          if (end.reason === 'lost') throw end.error;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      release();
      // Leaving the loop early (break, throw in the body) cancels the subscription.
      if (this.end === undefined) void this.close();
    }
  }

  /**
   * The server tore the subscription down with `notifications/cancelled` (stdio). Keel's server
   * sends its final result first: that result may still be on its way to `settle` through a few
   * promise steps, so the cancel is looked at one macrotask later. Without a result by then the
   * subscription is lost (no graceful end), and the pending request is given up.
   */
  private serverCancelled(reason: string | undefined): void {
    setTimeout(() => {
      if (this.end !== undefined) return;
      this.settle({
        reason: 'lost',
        error: new CancelledByPeerError(reason ?? 'The server ended the subscription without a final result'),
      });
      this.controller.abort(new Error('Subscription ended by the server'));
    }, 0);
  }

  private settle(end: SubscriptionEnd): void {
    if (this.end !== undefined) return;
    this.end = end;
    this.detach?.();
    this.detach = undefined;
    this.ack.reject(end.reason === 'lost' ? end.error : new Error(`Subscription ended (${end.reason})`));
    this.finish(end);
    this.wakeReader();
  }

  private wakeReader(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * Open a `subscriptions/listen` on `host` (the low-level form of `McpClient.listen`).
 *
 * @example
 * const subscription = listen(client.lowLevel, { resourceSubscriptions: ['file:///config.json'] });
 */
export function listen(host: ListenHost, filter: SubscriptionFilter, options?: ListenOptions): Subscription {
  return new Subscription(host, filter, options);
}
