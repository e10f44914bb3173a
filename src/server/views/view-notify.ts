/**
 * `list_changed` per view: a change of items only some callers see reaches only the legacy
 * sessions and 2026-07-28 listens whose view it changed.
 */
import type { ListenHub } from '../modern/subscriptions/listen-hub.js';
import type { ServerSession } from '../server-session.js';
import { recordedCaller } from './caller.js';
import type { ViewCaller, ViewRule } from './visibility.js';

function admits(rules: readonly ViewRule[], caller: ViewCaller | undefined): boolean {
  for (const rule of rules) if (rule(caller)) return true;
  return false;
}

/**
 * @internal Send `method` (a `list_changed`) on this process to every session that was promised
 * it and whose caller one of `rules` admits (a rule of a changed item, before or after the
 * change), and to the listens that opted into it under the same condition. A legacy session whose
 * caller is not known yet (no request served since the server has rules) is told, as without
 * views: a spurious `list_changed` costs a re-list, a missing one a stale list.
 *
 * @example
 * await notifyChangedViews(server, 'notifications/tools/list_changed', [adminsOnly]);
 */
export async function notifyChangedViews(
  server: { readonly sessions: ReadonlySet<ServerSession>; readonly listens: ListenHub },
  method: string,
  rules: readonly ViewRule[],
): Promise<void> {
  const sends: Promise<void>[] = [];
  for (const session of server.sessions) {
    if (!session.accepts(method)) continue;
    const caller = recordedCaller(session);
    if (caller === undefined || admits(rules, caller)) sends.push(session.notify(method));
  }
  sends.push(server.listens.publish(method, undefined, (caller) => admits(rules, caller)));
  await Promise.all(sends);
}
