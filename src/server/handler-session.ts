/**
 * What a handler sees of its session. Its own file: the session, the context and both eras'
 * request objects read it, and it reads nothing of theirs.
 */
import type { ProtocolVersion } from '../core/protocol-version.js';
import type { ClientCapabilities } from '../core/types/capabilities.js';
import type { Implementation } from '../core/types/common.js';
import type { ModernProtocolVersion } from '../core/types/modern.js';

/**
 * What a handler sees of its session (`ctx.session` in `McpServer` handlers; the low-level
 * handlers get the whole `ServerSession`). The same object for every request of a session.
 *
 * @example
 * server.tool('count', { description: 'Counts calls in this session' }, (_a, ctx) => {
 *   const calls = ((ctx.session.state.get('calls') as number | undefined) ?? 0) + 1;
 *   ctx.session.state.set('calls', calls);
 *   return `${ctx.session.clientInfo?.name ?? 'client'} called ${calls} times (session ${ctx.session.id})`;
 * });
 */
export interface HandlerSession {
  /** The HTTP session id; on stdio, memory and stateless HTTP, an id the server generated. */
  readonly id: string;
  /** `clientInfo` from `initialize` (undefined before it, or without a handshake). */
  readonly clientInfo: Implementation | undefined;
  /** The capabilities the client declared in `initialize` (`{}` before it). */
  readonly clientCapabilities: ClientCapabilities;
  /**
   * The negotiated protocol version (undefined before `initialize`, or without a handshake); for a
   * 2026-07-28 request, the version its `_meta` names.
   */
  readonly protocolVersion: ProtocolVersion | ModernProtocolVersion | undefined;
  /** Yours: lives exactly as long as the session, and is dropped with it. */
  readonly state: Map<string, unknown>;
}
