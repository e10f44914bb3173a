/**
 * Resource subscriptions (legacy era): `resources/subscribe` / `resources/unsubscribe` keep a set
 * of URIs per session; `notifyResourceUpdated(uri)` tells the sessions subscribed to it.
 */
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { Fanout } from './fanout.js';
import type { ServerSession, SessionServer } from './server-session.js';
import { recordedCaller } from './views/caller.js';

const SUBSCRIPTIONS_KEY = 'keel.subscriptions';

/**
 * Where a resource change is announced: the sessions and 2026-07-28 subscriptions of this
 * process, and the fan-out to the others. A `Server` is one (this file is below server.ts, which
 * calls {@link resourceUpdatedHere} for what a peer published).
 *
 * @example
 * const targets: ResourceUpdateTargets = mcpServer.server;
 */
export interface ResourceUpdateTargets extends Pick<SessionServer, 'sessions' | 'listens'> {
  readonly fanout: Pick<Fanout, 'publish'>;
}

function subscriptions(session: ServerSession): Set<string> {
  let set = session.internal.get(SUBSCRIPTIONS_KEY) as Set<string> | undefined;
  if (!set) {
    set = new Set();
    session.internal.set(SUBSCRIPTIONS_KEY, set);
  }
  return set;
}

function uriOf(params: JsonObject): string {
  if (typeof params.uri !== 'string' || params.uri === '') {
    throw new McpError(ErrorCode.InvalidParams, 'uri must be a non-empty string');
  }
  return params.uri;
}

/** `resources/subscribe`. The set dies with the session (it lives in `session.internal`). */
export function subscribe(params: JsonObject, session: ServerSession): JsonObject {
  subscriptions(session).add(uriOf(params));
  session.onStateChange?.();
  return {};
}

/** `resources/unsubscribe`. Unsubscribing from something never subscribed is not an error. */
export function unsubscribe(params: JsonObject, session: ServerSession): JsonObject {
  subscriptions(session).delete(uriOf(params));
  session.onStateChange?.();
  return {};
}

/** @internal The URIs `session` subscribed to (for its snapshot, see session-snapshot.ts). */
export function subscribedUris(session: ServerSession): string[] {
  const set = session.internal.get(SUBSCRIPTIONS_KEY) as Set<string> | undefined;
  return set ? [...set] : [];
}

/** True if `session` subscribed to `uri`. */
export function isSubscribed(session: ServerSession, uri: string): boolean {
  return (session.internal.get(SUBSCRIPTIONS_KEY) as Set<string> | undefined)?.has(uri) ?? false;
}

/**
 * Send `notifications/resources/updated` to every session subscribed to `uri` (legacy
 * `resources/subscribe`), and to every 2026-07-28 subscription that listed `uri`, on this process
 * and (after `joinFanout`) on every other process of the deployment. Resolves once delivered here
 * and handed to the fan-out; a fan-out failure is logged, never thrown.
 *
 * @example
 * await notifyResourceUpdated(server, 'test://watched-resource');
 */
export async function notifyResourceUpdated(server: ResourceUpdateTargets, uri: string): Promise<void> {
  await Promise.all([
    resourceUpdatedHere(server, uri),
    server.fanout.publish('notifications/resources/updated', { uri }),
  ]);
}

/**
 * @internal {@link notifyResourceUpdated} on this process only (also what a peer's fan-out
 * message delivers).
 */
export async function resourceUpdatedHere(
  server: Pick<ResourceUpdateTargets, 'sessions' | 'listens'>,
  uri: string,
): Promise<void> {
  const sends: Promise<void>[] = [];
  // Per-caller views: only the subscribers that may read `uri` (a hidden resource is "not found",
  // and its updates too); undefined when everyone may.
  const readable = server.listens.uriView?.(uri);
  for (const session of server.sessions) {
    if (!isSubscribed(session, uri)) continue;
    if (readable !== undefined) {
      const caller = recordedCaller(session);
      if (caller === undefined || !readable(caller)) continue;
    }
    sends.push(session.notify('notifications/resources/updated', { uri }));
  }
  sends.push(server.listens.publish('notifications/resources/updated', { uri }));
  await Promise.all(sends);
}
