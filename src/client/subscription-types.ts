/**
 * The shapes around a client `Subscription` (subscriptions.ts): what it delivers, how it ends,
 * its options, and what it needs from its client.
 */
import type { Connection } from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { SubscriptionFilter, SubscriptionsListenResult } from '../core/types/subscriptions.js';

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
 * closed it (`close()`, the `signal`, or closing the client or its connection). `lost`: it ended
 * without a final result (the connection dropped, the server went away, refused the listen, or
 * cancelled it without a result: `error` says which); a caller may listen again.
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
  /** Aborting it closes the subscription (as `Subscription.close()`). */
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
 * The `maxBuffered` of a subscription without one: enough for every distinct notification
 * `filter` allows, and never less than {@link DEFAULT_MAX_BUFFERED}.
 *
 * @example
 * defaultMaxBuffered({ resourceSubscriptions: ['a://1'] }); // 1024
 */
export function defaultMaxBuffered(filter: SubscriptionFilter): number {
  const uris = Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions.length : 0;
  return Math.max(DEFAULT_MAX_BUFFERED, 3 + uris);
}
