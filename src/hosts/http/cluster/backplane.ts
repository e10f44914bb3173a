/**
 * The shared state that lets several processes behind a load balancer serve the same legacy
 * sessions without sticky routing (issue 12). Each part is a small interface with an in-memory
 * implementation and a Redis one (`keel-mcp/redis`).
 */
import type { EventStore } from '../../../transports/http/server-wire/event-store.js';
import type { SessionStore } from '../session-store.js';
import type { Relay } from './relay.js';

/**
 * Pass as `createHttpHandler(server, { backplane })` on every process of a deployment.
 *
 * - `sessions`: one record per legacy session, naming the process that holds its connection
 *   (its *owner*). A request for a session another process owns is relayed to that owner and
 *   the answer relayed back, so handlers, pending server→client requests and streams keep one
 *   home and every lifecycle guarantee holds as on one process.
 * - `relay`: the messages between processes (relayed exchanges, notification fan-out) and which
 *   processes are alive; a request for a session whose owner died gets 404 (the session is gone).
 * - `events`: the resumability log (default: the handler's `eventStore` option, else in memory).
 *
 * @example
 * const hub = new MemoryRelayHub(); // tests: several handlers in one process
 * const sessions = new InMemorySessionStore();
 * const a = createHttpHandler(server, { backplane: { relay: hub.node(), sessions } });
 * const b = createHttpHandler(server, { backplane: { relay: hub.node(), sessions } });
 */
export interface Backplane {
  readonly relay: Relay;
  readonly sessions: SessionStore;
  readonly events?: EventStore;
}
