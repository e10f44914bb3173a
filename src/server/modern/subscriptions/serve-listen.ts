/**
 * Serving one `subscriptions/listen` (2026-07-28): its filter and limits checked, the
 * acknowledgement, then the request held open until the subscription ends. Called by the modern
 * era (era/modern-era.ts); what a live subscription is and how it ends gracefully are in
 * listen.ts, which the session imports.
 */
import type { RequestContext } from '../../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../../core/errors.js';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.js';
import { MetaKey } from '../../../core/types/modern.js';
import { SubscriptionMethod } from '../../../core/types/subscriptions.js';
import type { ClientCapabilities } from '../../../core/types/capabilities.js';
import type { SubscriptionFilter } from '../../../core/types/subscriptions.js';
import type { ServerSession, TaskSource } from '../../server-session.js';
import { declaresTasks, detailedTask, missingTasksExtension } from '../tasks-wire.js';
import { principalOf } from '../back-channel.js';
import { honoredFilter, isEmptyFilter, readFilter } from './listen-filter.js';
import { Listen, tagged, type ListenClient } from './listen.js';

/** The one response of a listen that ended gracefully: its subscription id, nothing else. */
function finalResult(id: RequestId): JsonObject {
  return { _meta: { [MetaKey.SubscriptionId]: id } };
}

/**
 * Whom a listen counts against for `maxSubscriptionsPerClient`: the authenticated principal when
 * the host's authentication gave one (over HTTP each request is a connection of its own, so only
 * the principal ties a client's listens together), else the connection (stdio: one client).
 *
 * @example
 * clientKeyOf(session, ctx); // 'sub:alice' with auth, session.connection without
 */
export function clientKeyOf(session: ServerSession, ctx: RequestContext): ListenClient {
  return principalOf(ctx.info?.authInfo) ?? session.connection;
}

/**
 * Serve one modern `subscriptions/listen` on `session`: check the filter (`-32602`, also over
 * `maxResourceSubscriptions` URIs) and the limits (`-32010`: `maxSubscriptions` over the server,
 * `maxSubscriptionsPerClient` per {@link clientKeyOf}), acknowledge
 * with the honoured subset, then hold the request open until it is ended. Resolves with the final
 * result on a graceful end (at once when nothing could ever be delivered: an empty honoured
 * filter); rejects with the abort reason when the client cancels or the connection drops (the
 * engine then writes nothing for it).
 *
 * @example
 * // era/modern-era.ts:
 * if (method === 'subscriptions/listen') return modernResult(server, method, params, await serveListen(session, params, ctx));
 */
export async function serveListen(
  session: ServerSession,
  params: JsonObject,
  ctx: RequestContext,
  clientCapabilities: ClientCapabilities = {},
): Promise<JsonObject> {
  const hub = session.server.listens;
  const requested = readFilter(params, hub.limits.maxUris);
  // The tasks extension: asking for task notifications without declaring it is -32021 (MUST).
  if (requested.taskIds !== undefined && !declaresTasks(clientCapabilities))
    throw missingTasksExtension('notifications.taskIds');
  if (hub.size >= hub.limits.max) {
    throw new McpError(ErrorCode.ServerBusy, `Too many open subscriptions (${hub.limits.max}); retry later`);
  }
  const client = clientKeyOf(session, ctx);
  if (hub.countOf(client) >= hub.limits.maxPerClient) {
    throw new McpError(
      ErrorCode.ServerBusy,
      `Too many open subscriptions for this client (${hub.limits.maxPerClient}, maxSubscriptionsPerClient); close one first`,
    );
  }
  const source = session.server.taskSource;
  let honored = honoredFilter(requested, session.server.capabilities, session.server.tasksOffered);
  // Awaited only when tasks are named: a listen without them keeps its synchronous start.
  if (honored.taskIds !== undefined)
    honored = await ownTasksOnly(honored, source, principalOf(ctx.info?.authInfo) ?? 'anonymous');
  // Written before the subscription joins the hub: nothing can overtake the acknowledgement.
  void ctx.notify(SubscriptionMethod.Acknowledged, tagged({ notifications: { ...honored } }, ctx.id));
  // Nothing could ever be sent on it: end it now rather than hold a stream open for nothing.
  if (isEmptyFilter(honored)) return finalResult(ctx.id);
  const listen = new Listen(session.connection, ctx, honored, client, session);
  hub.add(listen);
  // Each change of a named task, as tasks/get would show it (a notification that cannot be
  // written once the listen ended is dropped with it).
  const stops = (honored.taskIds ?? []).map((id) =>
    source!.follow(id, (task) => {
      listen.deliver('notifications/tasks', detailedTask(task)).catch(() => undefined);
    }),
  );
  try {
    await listen.wait();
  } finally {
    hub.delete(listen);
    for (const stop of stops) stop();
  }
  return finalResult(ctx.id);
}

/**
 * `filter` with only the task ids `owner` may read: an unknown id, or another owner's, is
 * dropped from the acknowledgement as if it did not exist (nothing tells which).
 */
async function ownTasksOnly(
  filter: SubscriptionFilter,
  source: TaskSource | undefined,
  owner: string,
): Promise<SubscriptionFilter> {
  const ids = filter.taskIds;
  if (ids === undefined) return filter;
  const kept: string[] = [];
  if (source !== undefined) {
    const found = await Promise.all(
      ids.map((id) =>
        source.get(id, owner).then(
          () => true,
          () => false,
        ),
      ),
    );
    ids.forEach((id, i) => found[i] && kept.push(id));
  }
  const { taskIds: _asked, ...rest } = filter;
  return kept.length > 0 ? { ...rest, taskIds: kept } : rest;
}
