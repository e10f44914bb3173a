/**
 * The client side of 2026-07-28 `subscriptions/listen`: a {@link Subscription} is an async iterable
 * of the change notifications the server agreed to send, with one end that says how it ended:
 * `graceful` (the server's final result: iteration completes), `closed` (this side closed it:
 * iteration completes) or `lost` (no final result: the transport dropped, or the server refused
 * the listen; iteration throws). Nothing re-listens on its own.
 */
import type { Connection } from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import { CancelledByPeerError, ConnectionClosedError } from '../core/errors.js';
import type { JsonObject, RequestId } from '../core/jsonrpc.js';
import { SubscriptionOverflowError } from './errors.js';
import { keyOf, routerOf } from './subscription-router.js';
import {
  SubscriptionMethod,
  type SubscriptionFilter,
  type SubscriptionsListenResult,
} from '../core/types/subscriptions.js';

/**
 * One change notification delivered on a subscription (`_meta` keeps the subscription id).
 *
 * @example
 * for await (const { method, params } of subscription) if (method === 'notifications/resources/updated') reload(params.uri);
 */
export interface SubscriptionNotification {
  method: string;
  params: JsonObject;
}

/**
 * How a subscription ended. `graceful`: the server sent its final result. `closed`: this side
 * closed it. `lost`: it ended without a final result (the connection dropped, the server refused
 * the listen, or cancelled it without a result: `error` says which); a caller may listen again.
 *
 * @example
 * const end = await subscription.ended;
 * if (end.reason === 'lost') console.error('subscription lost:', end.error.message);
 */
export type SubscriptionEnd =
  | { reason: 'graceful'; result: SubscriptionsListenResult }
  | { reason: 'closed' }
  | { reason: 'lost'; error: Error };

/**
 * @example
 * const subscription = client.listen({ toolsListChanged: true }, { signal: controller.signal });
 */
export interface ListenOptions {
  /** Aborting it closes the subscription (as {@link Subscription.close}). */
  signal?: AbortSignal;
  /** Extra `_meta` for the `subscriptions/listen` request. */
  meta?: JsonObject;
  /**
   * Distinct unread notifications kept before the subscription ends `lost` with
   * `SubscriptionOverflowError`. Default {@link DEFAULT_MAX_BUFFERED}, or more when the filter
   * allows more distinct notifications (three list kinds plus one per subscribed URI), so a
   * server that keeps to the filter never overflows it.
   */
  maxBuffered?: number;
}

/**
 * The default `maxBuffered` of a subscription.
 *
 * @example
 * client.listen({ toolsListChanged: true }, { maxBuffered: DEFAULT_MAX_BUFFERED * 4 });
 */
export const DEFAULT_MAX_BUFFERED = 1024;

/**
 * What a subscription needs from its client: the connection (its notifications), and the request
 * path (which adds the client's 2026-07-28 `_meta`). A low-level `Client` is one.
 *
 * @example
 * const host: ListenHost = { connection, request: (method, params, options) => connection.request(method, params, options) };
 */
export interface ListenHost {
  readonly connection: Connection;
  request(method: string, params: JsonObject, options: RequestOptions): Promise<JsonObject>;
}

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
    else outer?.addEventListener('abort', () => void this.close(), { once: true });
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
            this.controller.signal.aborted
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

  async *[Symbol.asyncIterator](): AsyncGenerator<SubscriptionNotification, void, undefined> {
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

/** Enough for every distinct notification `filter` allows, and never less than the default. */
function defaultMaxBuffered(filter: SubscriptionFilter): number {
  const uris = Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions.length : 0;
  return Math.max(DEFAULT_MAX_BUFFERED, 3 + uris);
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
