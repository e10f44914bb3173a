/**
 * The client→server methods 2026-07-28 removed, and what a caller uses instead. `McpClient`
 * checks them before sending in the modern era, so a caller gets a local error that says what to
 * do, not the server's bare `-32601`.
 */
import { RemovedInModernEraError } from '../errors.js';

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
