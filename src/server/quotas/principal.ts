/** Whom a call counts for by default (see `QuotaOptions.key`). */
import type { ServerCall } from '../interceptors.js';
import { principalOf } from '../modern/back-channel.js';

/**
 * The verified principal, else the connection's session (stdio and memory connections carry no
 * HTTP headers; a legacy HTTP session has an id), else `'anonymous'`: an HTTP request without a
 * session (stateless, 2026-07-28) has nothing else that stays the same from one call to the next.
 *
 * @example
 * defaultQuotaKey(call); // 'iss:"https://id.example" sub:alice' | 'session:…' | 'anonymous'
 */
export function defaultQuotaKey(call: ServerCall): string {
  const principal = principalOf(call.auth);
  if (principal !== undefined) return principal;
  const sessionId = call.session.sessionId;
  if (sessionId !== undefined) return `session:${sessionId}`;
  return call.info?.headers === undefined ? `session:${call.session.id}` : 'anonymous';
}
