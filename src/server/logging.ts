/**
 * Logging: `logging/setLevel` stores a minimum level per session; log messages below it are not
 * sent. Without a `setLevel` every message is sent (the server's `defaultLogLevel` may raise that).
 */
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import { isLoggingLevel, loggingLevelRank, type LoggingLevel } from '../core/types/logging.js';
import type { ServerSession } from './server-session.js';

const LEVEL_KEY = 'keel.logLevel';
/** 2026-07-28: a request may carry its own log level in `_meta`. */
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** The session's minimum level, if the client set one. */
export function sessionLogLevel(session: ServerSession): LoggingLevel | undefined {
  return session.internal.get(LEVEL_KEY) as LoggingLevel | undefined;
}

/**
 * The `logging/setLevel` handler.
 *
 * @example
 * server.setRequestHandler('logging/setLevel', (params, _ctx, session) => setLogLevel(params, session));
 */
export function setLogLevel(params: JsonObject, session: ServerSession): JsonObject {
  if (!isLoggingLevel(params.level)) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid log level: ${String(params.level)}`);
  }
  session.internal.set(LEVEL_KEY, params.level);
  session.onStateChange?.();
  return {};
}

/**
 * Whether a message at `level` may be sent: the request's own level (`_meta`) wins, then the
 * session's, then `fallback`.
 */
export function shouldLog(
  level: LoggingLevel,
  session: ServerSession,
  meta: JsonObject | undefined,
  fallback: LoggingLevel,
): boolean {
  const requested = meta?.[META_LOG_LEVEL];
  const minimum = isLoggingLevel(requested) ? requested : (sessionLogLevel(session) ?? fallback);
  return loggingLevelRank(level) >= loggingLevelRank(minimum);
}

/** `notifications/message` params. */
export function logParams(level: LoggingLevel, data: unknown, logger?: string): JsonObject {
  return logger === undefined ? { level, data } : { level, logger, data };
}
