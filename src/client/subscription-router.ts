/**
 * Routing of 2026-07-28 subscription notifications on one connection: each notification tagged
 * with a subscription id goes to that subscription, and on to the client's own notification
 * handlers (so `client.on('toolsChanged')` and the caches work the same in both eras).
 */
import type { Connection, NotificationHandler } from '../core/engine/connection.js';
import type { JsonObject, RequestId } from '../core/jsonrpc.js';
import { MetaKey } from '../core/types/modern.js';

/**
 * What the router hands a notification to (a `Subscription`).
 *
 * @example
 * const receiver: SubscriptionReceiver = { receive: (method, params) => console.log(method, params) };
 */
export interface SubscriptionReceiver {
  receive(method: string, params: JsonObject): void;
}

/** Subscriptions of one connection by id; the notification hook is installed once per connection. */
const routers = new WeakMap<Connection, Map<RequestId, SubscriptionReceiver>>();

/**
 * The id → subscription table of `connection`, installing its notification hook on first use.
 *
 * @example
 * routerOf(connection).set(requestId, subscription);
 */
export function routerOf(connection: Connection): Map<RequestId, SubscriptionReceiver> {
  const live = routers.get(connection);
  if (live) return live;
  const table = new Map<RequestId, SubscriptionReceiver>();
  routers.set(connection, table);
  const next: NotificationHandler | undefined = connection.fallbackNotificationHandler;
  // Subscription notifications go to their subscription and on to the client's own handlers
  // (its `toolsListChanged` events and caches hold in both eras).
  connection.fallbackNotificationHandler = (params, info, method) => {
    // The engine hands on a cancel naming none of the server's requests: on stdio it may end ours.
    const id =
      method === 'notifications/cancelled'
        ? params.requestId
        : (params._meta as JsonObject | undefined)?.[MetaKey.SubscriptionId];
    if (typeof id === 'string' || typeof id === 'number') table.get(id)?.receive(method, params);
    return next?.(params, info, method);
  };
  return table;
}

/**
 * The key under which an unread notification makes a second identical one redundant.
 *
 * @example
 * keyOf('notifications/resources/updated', { uri: 'file:///a' }); // ignores `_meta`
 */
export function keyOf(method: string, params: JsonObject): string {
  const { _meta: _ignored, ...rest } = params;
  return `${method} ${JSON.stringify(rest)}`;
}
