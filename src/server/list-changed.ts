/**
 * `notifications/{tools,resources,prompts}/list_changed`, coalesced: any number of changes in one
 * tick produce one notification per list, sent to every initialized session of this process
 * (never fanned out to the other processes of a deployment). With per-caller views
 * (`visibleTo`), a change of an item only some callers see goes only to the sessions and
 * 2026-07-28 listens whose view it changed (views/view-notify.ts).
 */
import type { Server } from './server.js';
import { notifyChangedViews } from './views/view-notify.js';
import type { ViewRule } from './views/visibility.js';

/**
 * The lists a server can announce changes of.
 *
 * @example
 * const kind: ListKind = 'resources';
 * server.notifyListChanged(kind);
 */
export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * Who saw an item, before or after a change: nobody (`false`: absent or disabled), everyone
 * (`true`), or the callers its visibility rule admits.
 *
 * @example
 * notifier.changed('tools', false, true); // a tool everyone sees was added
 */
export type Seen = boolean | ViewRule;

/**
 * @example
 * const notifier = new ListChangedNotifier(server);
 * notifier.changed('tools'); notifier.changed('tools'); // one notification after this tick
 */
export class ListChangedNotifier {
  /**
   * The lists with a notification queued for this tick: `true` when everyone's view changed, or
   * the rules of the items that changed (a caller's view changed if one of them admits it).
   */
  private readonly queued = new Map<ListKind, true | ViewRule[]>();

  constructor(private readonly server: Server) {}

  /**
   * An item of `kind` changed; `before` and `after` say who saw it (default: everyone, as for a
   * change of data rather than of a registration).
   */
  changed(kind: ListKind, before: Seen = true, after: Seen = true): void {
    // Nobody to tell: registrations before any client connects are the common case.
    if (this.server.sessions.size === 0) return;
    const queued = this.queued.get(kind);
    if (queued === true) return;
    if (before === true || after === true) this.queued.set(kind, true);
    else {
      const rules = queued ?? [];
      if (typeof before === 'function') rules.push(before);
      if (typeof after === 'function' && after !== before) rules.push(after);
      // Seen by nobody before and after (a disabled item updated): nothing to tell.
      if (rules.length === 0) return;
      this.queued.set(kind, rules);
    }
    if (queued === undefined) queueMicrotask(() => this.flush(kind));
  }

  private flush(kind: ListKind): void {
    const queued = this.queued.get(kind);
    this.queued.delete(kind);
    if (queued === undefined) return;
    const method = `notifications/${kind}/list_changed`;
    // This process only: every process lists its own registry and tells its own sessions (the
    // same change made on N processes must not reach a client N times).
    if (queued === true) void this.server.broadcastHere(method);
    else void notifyChangedViews(this.server, method, queued);
  }
}
