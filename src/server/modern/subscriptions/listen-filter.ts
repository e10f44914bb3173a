/**
 * The `subscriptions/listen` filter: read and checked from the request (`-32602` on bad input),
 * narrowed to what this server can deliver (the acknowledged subset), and matched against each
 * change notification.
 */
import { ErrorCode, McpError } from '../../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../../core/jsonrpc.js';
import type { ServerCapabilities } from '../../../core/types/capabilities.js';
import type { SubscriptionFilter } from '../../../core/types/subscriptions.js';

const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `subscriptions/listen: ${message}`);
}

/**
 * Default cap on `notifications.resourceSubscriptions` of one listen (`maxResourceSubscriptions`).
 * A client watching more resources than this opens several listens (each counts against the
 * subscription limits) or listens for `resourcesListChanged`.
 *
 * @example
 * new McpServer(info, { maxResourceSubscriptions: DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS * 2 });
 */
export const DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS = 1_000;

/**
 * The filter of a `subscriptions/listen` request. `notifications` is required (an object); each
 * flag, when present, a boolean; `resourceSubscriptions`, when present, an array of at most
 * `maxUris` non-empty strings (checked before any is read: a huge list costs nothing). Unknown
 * fields are ignored (a later revision may add types; they are simply not acknowledged).
 *
 * @example
 * readFilter({ notifications: { toolsListChanged: true } }); // { toolsListChanged: true }
 * readFilter({ notifications: { toolsListChanged: 'yes' } }); // throws -32602
 */
export function readFilter(
  params: JsonObject,
  maxUris: number = DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS,
): SubscriptionFilter {
  const requested = params.notifications;
  if (!isJsonObject(requested)) throw invalid('params.notifications is required and must be an object');
  const filter: SubscriptionFilter = {};
  for (const flag of FLAGS) {
    const value = requested[flag];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw invalid(`notifications.${flag} must be a boolean`);
    if (value) filter[flag] = true;
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris)) throw invalid('notifications.resourceSubscriptions must be an array of URIs');
    if (uris.length > maxUris) {
      throw invalid(
        `notifications.resourceSubscriptions holds ${uris.length} URIs; at most ${maxUris} per subscription (maxResourceSubscriptions)`,
      );
    }
    for (const uri of uris) {
      if (typeof uri !== 'string' || uri === '')
        throw invalid('notifications.resourceSubscriptions must hold non-empty strings');
    }
    if (uris.length > 0) filter.resourceSubscriptions = [...new Set(uris as string[])];
  }
  const taskIds = requested.taskIds;
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds)) throw invalid('notifications.taskIds must be an array of task ids');
    if (taskIds.length > maxUris)
      throw invalid(`notifications.taskIds holds ${taskIds.length} ids; at most ${maxUris} per subscription`);
    for (const id of taskIds) {
      if (typeof id !== 'string' || id === '')
        throw invalid('notifications.taskIds must hold non-empty strings');
    }
    if (taskIds.length > 0) filter.taskIds = [...new Set(taskIds as string[])];
  }
  return filter;
}

/**
 * The part of `requested` this server can deliver: a list-changed flag only when the capability
 * says `listChanged: true`, resource subscriptions only with `resources.subscribe: true`. This is
 * what the acknowledgement carries and what the subscription is then held to.
 *
 * @example
 * honoredFilter({ toolsListChanged: true, promptsListChanged: true }, { tools: { listChanged: true } });
 * // { toolsListChanged: true }
 */
export function honoredFilter(
  requested: SubscriptionFilter,
  capabilities: ServerCapabilities,
  /** The server offers the tasks extension (a tool may run as a task). */
  tasksOffered = false,
): SubscriptionFilter {
  const honored: SubscriptionFilter = {};
  if (requested.toolsListChanged && capabilities.tools?.listChanged === true) honored.toolsListChanged = true;
  if (requested.promptsListChanged && capabilities.prompts?.listChanged === true)
    honored.promptsListChanged = true;
  if (requested.resourcesListChanged && capabilities.resources?.listChanged === true)
    honored.resourcesListChanged = true;
  if (requested.resourceSubscriptions && capabilities.resources?.subscribe === true)
    honored.resourceSubscriptions = requested.resourceSubscriptions;
  // Task ids with the tasks extension; which of them the caller owns is decided by serveListen.
  if (requested.taskIds && tasksOffered) honored.taskIds = requested.taskIds;
  return honored;
}

/**
 * True when nothing could ever be delivered under `filter`.
 *
 * @example
 * isEmptyFilter({}); // true
 */
export function isEmptyFilter(filter: SubscriptionFilter): boolean {
  return (
    !filter.toolsListChanged &&
    !filter.promptsListChanged &&
    !filter.resourcesListChanged &&
    filter.resourceSubscriptions === undefined &&
    filter.taskIds === undefined
  );
}

/**
 * A subscription's filter ready for matching: the URIs in a Set, so a resource update costs one
 * lookup per subscription, however many URIs it watches.
 *
 * @example
 * const matcher = filterMatcher({ resourceSubscriptions: ['a://x'] });
 */
export interface FilterMatcher {
  readonly filter: SubscriptionFilter;
  readonly uris: ReadonlySet<string>;
  readonly taskIds: ReadonlySet<string>;
}

/**
 * The {@link FilterMatcher} of a (honoured) filter.
 *
 * @example
 * wants(filterMatcher({ toolsListChanged: true }), 'notifications/tools/list_changed', undefined); // true
 */
export function filterMatcher(filter: SubscriptionFilter): FilterMatcher {
  return { filter, uris: new Set(filter.resourceSubscriptions), taskIds: new Set(filter.taskIds) };
}

/**
 * True when a subscription holding `matcher` wants the change notification `method` (with its
 * `params`). Methods that are not change notifications are never delivered on a subscription.
 *
 * @example
 * wants(filterMatcher({ resourceSubscriptions: ['a://x'] }), 'notifications/resources/updated', { uri: 'a://x' }); // true
 */
export function wants(matcher: FilterMatcher, method: string, params: JsonObject | undefined): boolean {
  const { filter } = matcher;
  switch (method) {
    case 'notifications/tools/list_changed':
      return filter.toolsListChanged === true;
    case 'notifications/prompts/list_changed':
      return filter.promptsListChanged === true;
    case 'notifications/resources/list_changed':
      return filter.resourcesListChanged === true;
    case 'notifications/resources/updated': {
      const uri = params?.uri;
      return typeof uri === 'string' && matcher.uris.has(uri);
    }
    case 'notifications/tasks': {
      const taskId = params?.taskId;
      return typeof taskId === 'string' && matcher.taskIds.has(taskId);
    }
    default:
      return false;
  }
}
