/**
 * The per-client session limit (`sessions.clientKey` + `sessions.maxPerClient`, with their
 * defaults) and the two refusals a new session can meet (503 full, 429 over the client's limit),
 * each with `Retry-After`.
 */
import { ErrorCode } from '../../core/errors.js';
import { principalOf } from '../../server/modern/back-channel.js';
import type { HttpExchange, HttpReply, HttpRequestExtra } from '../../transports/http/server-wire/types.js';
import {
  DEFAULT_MAX_PER_CLIENT,
  DEFAULT_MAX_SESSIONS,
  type HttpHandlerOptions,
  type SessionClient,
} from './options.js';
import { httpError } from '../../transports/http/server-wire/responses.js';

/**
 * The per-client limit in effect. `clientKey`: the option, else with `auth` the verified principal
 * (issuer and subject, or issuer and client id: see `principalOf`), else none. `maxPerClient`: the
 * option, else 100 or a tenth of `sessions.max`, whichever is less (at least 1), so that no one
 * client can fill the table.
 *
 * @example
 * const limits = clientLimitsOf({ auth, sessions: { max: 50 } }); // principal key, 5 per principal
 */
export function clientLimitsOf(options: HttpHandlerOptions): ClientLimits {
  const sessions = options.sessions || {};
  const max = Math.max(1, sessions.max ?? DEFAULT_MAX_SESSIONS);
  const clientKey = sessions.clientKey ?? (options.auth ? principalKey : undefined);
  const maxPerClient = Math.max(
    1,
    sessions.maxPerClient ?? Math.min(DEFAULT_MAX_PER_CLIENT, Math.floor(max / MAX_SHARE_OF_ONE_CLIENT)),
  );
  return { clientKey, maxPerClient };
}

/**
 * The limit {@link ClientQuota} enforces.
 *
 * @example
 * const limits: ClientLimits = { clientKey: (c) => c.remoteAddress, maxPerClient: 20 };
 */
export interface ClientLimits {
  readonly clientKey: ((client: SessionClient) => string | undefined) | undefined;
  readonly maxPerClient: number;
}

/** By default one client may hold at most `max / 10` sessions. */
const MAX_SHARE_OF_ONE_CLIENT = 10;

/** The default key with `auth`: the gate's verified caller (it always names a principal). */
function principalKey(client: SessionClient): string | undefined {
  return principalOf(client.authInfo);
}

/** Full, and every session is in use or did work recently: come back soon. */
export const SESSIONS_FULL: HttpReply = withRetryAfter(
  httpError(503, ErrorCode.ConnectionClosed, 'Too many sessions; try again later'),
  5,
);
/** This client holds its quota of sessions: it must end (DELETE) or reuse one. */
export const CLIENT_LIMIT: HttpReply = withRetryAfter(
  httpError(429, ErrorCode.ConnectionClosed, 'Too many sessions for this client; end one first'),
  60,
);

/**
 * Live sessions per client key. Without a client key it admits everything for free.
 *
 * @example
 * const quota = new ClientQuota({ clientKey: (c) => c.remoteAddress, maxPerClient: 10 });
 * const key = quota.keyOf(exchange, extra);
 * if (!quota.admits(key)) return CLIENT_LIMIT;
 * quota.add(key); // ... and quota.release(key) when the session ends
 */
export class ClientQuota {
  private readonly counts = new Map<string, number>();
  private readonly clientKey: ((client: SessionClient) => string | undefined) | undefined;
  private readonly max: number;

  constructor(limits: ClientLimits) {
    this.clientKey = limits.clientKey;
    this.max = limits.maxPerClient;
  }

  /** The key of the client sending this `initialize` (undefined: not limited). */
  keyOf(exchange: HttpExchange, extra: HttpRequestExtra | undefined): string | undefined {
    return this.clientKey?.(clientFacts(exchange, extra));
  }

  admits(key: string | undefined): boolean {
    return key === undefined || (this.counts.get(key) ?? 0) < this.max;
  }

  add(key: string | undefined): void {
    if (key !== undefined) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  release(key: string | undefined): void {
    if (key === undefined) return;
    const left = (this.counts.get(key) ?? 1) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }
}

/** The facts `sessions.clientKey` sees; headers are built only if it reads them. */
function clientFacts(exchange: HttpExchange, extra: HttpRequestExtra | undefined): SessionClient {
  return {
    remoteAddress: extra?.remoteAddress,
    authInfo: extra?.authInfo,
    get headers() {
      return exchange.headers();
    },
  };
}

function withRetryAfter(reply: HttpReply, seconds: number): HttpReply {
  return Object.freeze({
    ...reply,
    headers: Object.freeze({ ...reply.headers, 'retry-after': String(seconds) }),
  });
}
