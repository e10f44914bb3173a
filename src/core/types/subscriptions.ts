/**
 * 2026-07-28 `subscriptions/listen` wire types: the filter a client opts in with, the
 * acknowledgement, and the result that ends a subscription gracefully.
 */
import type { RequestId } from '../jsonrpc.js';

/**
 * The notification types a `subscriptions/listen` opts in to. Every field is optional; an absent
 * field (or `false`) means "not wanted", and the server never sends a type not opted into.
 *
 * @example
 * const filter: SubscriptionFilter = { toolsListChanged: true, resourceSubscriptions: ['file:///a.txt'] };
 */
export interface SubscriptionFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for exactly these URIs (replaces `resources/subscribe`). */
  resourceSubscriptions?: string[];
  /** `notifications/tasks` for these tasks (the tasks extension, `io.modelcontextprotocol/tasks`). */
  taskIds?: string[];
}

/**
 * The methods of `subscriptions/listen`.
 *
 * @example
 * connection.request(SubscriptionMethod.Listen, { notifications: { toolsListChanged: true } });
 */
export const SubscriptionMethod = {
  /** Client → server: open a subscription (a long-lived request). */
  Listen: 'subscriptions/listen',
  /** Server → client: the first message of every subscription; `notifications` = what is honoured. */
  Acknowledged: 'notifications/subscriptions/acknowledged',
} as const;

/**
 * Params of `notifications/subscriptions/acknowledged`: the subset of the requested filter the
 * server agreed to honour, and the subscription id in `_meta`.
 *
 * @example
 * const ack: SubscriptionsAcknowledgedParams = {
 *   notifications: { toolsListChanged: true },
 *   _meta: { 'io.modelcontextprotocol/subscriptionId': 1 },
 * };
 */
export interface SubscriptionsAcknowledgedParams {
  notifications: SubscriptionFilter;
  _meta: { 'io.modelcontextprotocol/subscriptionId': RequestId; [key: string]: unknown };
}

/**
 * The response to `subscriptions/listen`: sent only when the server ends the subscription
 * gracefully (an abrupt end carries no response). Its `_meta` names the subscription.
 *
 * @example
 * const end: SubscriptionsListenResult = {
 *   resultType: 'complete',
 *   _meta: { 'io.modelcontextprotocol/subscriptionId': 1 },
 * };
 */
export interface SubscriptionsListenResult {
  resultType?: string;
  _meta: { 'io.modelcontextprotocol/subscriptionId': RequestId; [key: string]: unknown };
  [key: string]: unknown;
}
