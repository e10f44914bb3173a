/**
 * Methods that exist in one era only. The client→server methods 2026-07-28 removed, and what a
 * caller uses instead: `McpClient` checks them before sending in the modern era, so a caller gets
 * a local error that says what to do, not the server's bare `-32601`. And the other way round,
 * `subscriptions/listen` on a legacy connection.
 */
import type { Connection } from '../../core/engine/connection.js';
import { ModernOnlyError, RemovedInModernEraError } from '../errors.js';
import type { ListenHost } from '../subscriptions.js';

/** Method → what to use instead (the `hint` of {@link RemovedInModernEraError}). */
const REMOVED: ReadonlyMap<string, string> = new Map(
  Object.entries({
    'resources/subscribe':
      "use client.listen({ resourceSubscriptions: [uri] }) and read the subscription (its notifications also reach client.on('resourceUpdated'))",
    'resources/unsubscribe':
      'close the subscription that lists the uri (subscription.close()), or listen again without it',
    'logging/setLevel': 'use client.setLoggingLevel(level): the level then goes with every request in _meta',
    ping: 'use client.ping(), which sends server/discover in this era',
    initialize: 'there is no handshake: every request carries the client facts in _meta',
  }),
);

/**
 * Throw {@link RemovedInModernEraError} when `era` is modern and `method` no longer exists.
 *
 * @example
 * assertNotRemoved(client.era, 'resources/subscribe'); // throws in the modern era
 */
export function assertNotRemoved(era: string | undefined, method: string): void {
  if (era !== 'modern') return;
  const hint = REMOVED.get(method);
  if (hint !== undefined) throw new RemovedInModernEraError(method, hint);
}

/**
 * A listen host for a legacy connection: its request rejects with {@link ModernOnlyError} without
 * sending anything, so the subscription ends `lost` at once.
 *
 * @example
 * const subscription = listen(refusingListenHost(client.lowLevel.connection), { toolsListChanged: true });
 */
export function refusingListenHost(connection: Connection): ListenHost {
  const refused = new ModernOnlyError(
    'subscriptions/listen',
    "the server pushes list changes by itself (client.on('toolsChanged'), ...); use subscribeResource(uri) for resources/updated",
  );
  return { connection, request: () => Promise.reject(refused) };
}
