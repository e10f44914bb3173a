/**
 * `notifications/{tools,resources,prompts}/list_changed`, coalesced: any number of changes in one
 * tick produce one notification per list, sent to every initialized session of this process
 * (never fanned out to the other processes of a deployment).
 */
import type { Server } from './server.js';

/**
 * The lists a server can announce changes of.
 *
 * @example
 * const kind: ListKind = 'resources';
 * server.notifyListChanged(kind);
 */
export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * @example
 * const notifier = new ListChangedNotifier(server);
 * notifier.changed('tools'); notifier.changed('tools'); // one notification after this tick
 */
export class ListChangedNotifier {
  private readonly queued = new Set<ListKind>();

  constructor(private readonly server: Server) {}

  changed(kind: ListKind): void {
    // Nobody to tell: registrations before any client connects are the common case.
    if (this.server.sessions.size === 0 || this.queued.has(kind)) return;
    this.queued.add(kind);
    queueMicrotask(() => {
      this.queued.delete(kind);
      // This process only: every process lists its own registry and tells its own sessions (the
      // same change made on N processes must not reach a client N times).
      void this.server.broadcastHere(`notifications/${kind}/list_changed`);
    });
  }
}
