/**
 * What a legacy session must carry to continue on another process (issue 28): the handshake's
 * outcome, the log level and resource subscriptions the client set. Handlers, pending
 * server→client requests and streams cannot move; these few facts can, so a process that adopts
 * a session whose owner is gone serves it as if it had answered its `initialize`.
 */
import type { JsonObject } from '../core/jsonrpc.js';
import { isSupportedVersion, type ProtocolVersion } from '../core/protocol-version.js';
import type { Implementation } from '../core/types/common.js';
import { isLoggingLevel } from '../core/types/logging.js';
import { LEGACY_ERA } from './era/legacy-era.js';
import { sessionLogLevel, setLogLevel } from './logging.js';
import type { ServerSession } from './server-session.js';
import { subscribe, subscribedUris } from './subscriptions.js';

/**
 * A legacy session's portable state, as JSON. Short keys: it is written to the shared session
 * record on each change (handshake, `logging/setLevel`, `resources/(un)subscribe`).
 *
 * @example
 * const snapshot = snapshotOf(session); // { v: '2025-11-25', c: {...}, i: { name: 'cli', version: '1' }, n: 1 }
 */
export interface SessionSnapshot {
  /** Negotiated protocol version. */
  v: string;
  /** Client capabilities. */
  c?: JsonObject;
  /** Client info. */
  i?: JsonObject;
  /** 1 once `notifications/initialized` came. */
  n?: 1;
  /** The minimum log level the client set. */
  l?: string;
  /** Subscribed resource URIs. */
  s?: string[];
}

/**
 * The session's snapshot, or undefined before its handshake (nothing to continue yet).
 *
 * @example
 * session.onStateChange = () => records.update(session.sessionId!, snapshotOf(session));
 */
export function snapshotOf(session: ServerSession): SessionSnapshot | undefined {
  // Only legacy sessions have records (a session id comes from `initialize`), so a version is a handshake.
  if (session.protocolVersion === undefined) return undefined;
  const snapshot: SessionSnapshot = { v: session.protocolVersion };
  if (Object.keys(session.clientCapabilities).length > 0) snapshot.c = session.clientCapabilities;
  if (session.clientInfo !== undefined) snapshot.i = session.clientInfo;
  if (session.initialized) snapshot.n = 1;
  const level = sessionLogLevel(session);
  if (level !== undefined) snapshot.l = level;
  const uris = subscribedUris(session);
  if (uris.length > 0) snapshot.s = uris;
  return snapshot;
}

/**
 * Whether `value` (parsed from a record written by any version of Keel) is a snapshot this
 * version can restore: anything else is not adopted (the session then ends as before).
 *
 * @example
 * if (isSessionSnapshot(data.snapshot)) restoreSession(session, data.snapshot);
 */
export function isSessionSnapshot(value: unknown): value is SessionSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  if (typeof s.v !== 'string' || !isSupportedVersion(s.v)) return false;
  if (s.c !== undefined && (typeof s.c !== 'object' || s.c === null)) return false;
  if (s.i !== undefined && (typeof s.i !== 'object' || s.i === null)) return false;
  if (s.l !== undefined && !isLoggingLevel(s.l)) return false;
  return s.s === undefined || (Array.isArray(s.s) && s.s.every((uri) => typeof uri === 'string'));
}

/**
 * Make a fresh connection's session the one `snapshot` describes, without a handshake: the
 * client already had its `initialize` answered elsewhere. The server's capabilities are this
 * process's (every process of a deployment serves the same tools, resources and prompts).
 *
 * @example
 * restoreSession(transport.session, snapshot);
 */
export function restoreSession(session: ServerSession, snapshot: SessionSnapshot): void {
  session.protocolVersion = snapshot.v as ProtocolVersion; // checked by isSessionSnapshot
  session.protocolEra = LEGACY_ERA;
  session.clientCapabilities = snapshot.c ?? {};
  session.clientInfo = snapshot.i as Implementation | undefined;
  session.serverCapabilities = session.server.capabilities;
  if (snapshot.l !== undefined) setLogLevel({ level: snapshot.l }, session);
  for (const uri of snapshot.s ?? []) subscribe({ uri }, session);
  if (snapshot.n === 1) session.markInitialized();
}
