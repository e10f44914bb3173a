/**
 * Options of {@link createHttpHandler} and their defaults, in one place.
 */
import type { ConnectionOptions, Logger } from '../../core/engine/connection.js';
import type { ResourceServerOptions } from '../../server/auth/options.js';
import type { Backplane } from './cluster/backplane.js';
import type { EventStore } from '../../transports/http/server-wire/event-store.js';
import { OutputBudget } from '../../transports/http/server-wire/output-budget.js';

/**
 * Why a session ended (passed to `onSessionEnd`).
 *
 * @example
 * createHttpHandler(server, {
 *   onSessionEnd: (id: string, reason: SessionEndReason) => console.error(`session ${id} ended: ${reason}`),
 * });
 */
export type SessionEndReason = 'deleted' | 'expired' | 'evicted' | 'shutdown' | 'closed' | 'handed-over';

/**
 * Session table limits. Both are on by default: a public endpoint must not grow without bound.
 *
 * @example
 * createHttpHandler(server, { sessions: { idleMs: 10 * 60_000, max: 1_000 } });
 */
export interface SessionOptions {
  /**
   * A session with no open HTTP exchange (no pending POST, no open SSE stream) for this long is
   * ended (its handlers are aborted). Checked by one sweeper, so expiry happens between `idleMs`
   * and `1.5 × idleMs` (at most `idleMs + 60 s`). Default 30 minutes.
   */
  idleMs?: number;
  /**
   * Maximum number of live sessions. A new `initialize` when full evicts one session that is not
   * in use, preferring those that never finished the handshake, then those that never made a
   * call, least recently used first; see {@link recentWorkMs}. If none qualifies it gets 503 with
   * `Retry-After`. Default 10,000.
   */
  max?: number;
  /**
   * A session that made a call (any request but `initialize` and `ping`) and had HTTP activity
   * within this time is never evicted (a new `initialize` gets 503 instead). A session in use (an
   * open POST or SSE stream, or a handler still running) is never evicted at all. Default 5 minutes.
   */
  recentWorkMs?: number;
  /**
   * The key a new session counts against for {@link maxPerClient}, from facts about its
   * `initialize` request: e.g. the authenticated principal, or the remote address (the Node
   * adapter supplies it; other hosts pass it as `extra.remoteAddress`). `undefined`: no limit
   * for this request. Default: with `auth`, the verified principal (issuer and subject, or issuer
   * and client id), so one user cannot fill the table; without `auth`, none (no per-client limit).
   */
  clientKey?: (client: SessionClient) => string | undefined;
  /**
   * Live sessions allowed per {@link clientKey}; one more `initialize` gets 429 with
   * `Retry-After` (the client should end or reuse its sessions; no other client's session is
   * evicted for it). Default: 100, or a tenth of {@link max} when that is less (at least 1).
   */
  maxPerClient?: number;
  /** Session id factory; ids must be visible ASCII (0x21–0x7E). Default: `crypto.randomUUID()`. */
  generateId?: () => string;
}

/**
 * What `sessions.clientKey` knows about the `initialize` request that would open a session.
 *
 * @example
 * createHttpHandler(server, {
 *   sessions: { clientKey: (client: SessionClient) => client.remoteAddress, maxPerClient: 20 },
 * });
 */
export interface SessionClient {
  /** The peer's address, when the host knows it (the Node adapter always passes it). */
  readonly remoteAddress: string | undefined;
  /**
   * What the host's authentication passed as `authInfo`; with the `auth` option, the verified
   * caller (an `AuthInfo`: `subject`, `clientId`, `scopes`, ...).
   */
  readonly authInfo: unknown;
  /** The request headers. */
  readonly headers: Headers;
}

/**
 * @example
 * const handler = createHttpHandler(server, {
 *   sessions: { idleMs: 600_000 },
 *   allowedHosts: ['mcp.example.com'],
 *   allowedOrigins: ['https://app.example.com'],
 * });
 */
export interface HttpHandlerOptions {
  /** Stateful sessions (default) with limits, or `false` for stateless mode. */
  sessions?: SessionOptions | false | undefined;
  /**
   * Where SSE events are kept for resumption (GET + `Last-Event-ID`). Default: a bounded
   * in-memory store. `false` disables resumability (no event ids, no priming events).
   */
  eventStore?: EventStore | false;
  /** `retry:` (ms) sent with the priming event of each resumable SSE stream. Default 1,000. */
  retryMs?: number;
  /** Interval of `: keep-alive` comments on open SSE streams; 0 disables. Default 15,000. */
  keepAliveMs?: number;
  /** Largest accepted POST body in bytes (larger → 413). Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Require `Accept` to list both `application/json` and `text/event-stream` on POST (and
   * `text/event-stream` on GET), as the spec says clients MUST. Default false: a missing Accept
   * or `*∕*` is accepted too.
   */
  strictAccept?: boolean;
  /**
   * How a POST that carries a request is answered. `'auto'` (default): JSON when the handler sent
   * nothing before its result, SSE from its first related message on. `'sse'`: always SSE (every
   * response stream is primed and resumable from the start). 2026-07-28 requests always use
   * `'auto'`: their errors carry an HTTP status (404 for an unknown method), which a stream opened
   * before the answer could no longer set.
   */
  postResponse?: 'auto' | 'sse';
  /** Offer the standalone GET stream. Default true; false answers GET with 405. */
  enableGetStream?: boolean;
  /**
   * DNS-rebinding protection: check `Host` and `Origin`. Default true. Turn it off only behind a
   * proxy that does this, or set {@link allowedHosts}/{@link allowedOrigins} for your names.
   */
  dnsRebindingProtection?: boolean;
  /**
   * Accepted `Host` names. An entry without a port accepts any port; `name:port` accepts only that
   * port. Default: `localhost`, `127.0.0.1`, `[::1]`.
   */
  allowedHosts?: readonly string[];
  /**
   * Accepted `Origin` values (requests without `Origin` are always accepted). An entry is a full
   * origin (`https://app.example.com`, exact match) or a host name (any scheme and port).
   * Default: `localhost`, `127.0.0.1`, `[::1]`.
   */
  allowedOrigins?: readonly string[];
  /** Engine options of every session's connection. */
  connection?: ConnectionOptions;
  /** Called when a session was created (after its initialize request was accepted). */
  onSessionStart?: (sessionId: string) => void;
  /** Called once when a session ends, whatever the way. */
  onSessionEnd?: (sessionId: string, reason: SessionEndReason) => void;
  /** Where dropped writes and transport faults are reported. Default: silent. */
  logger?: Logger;
  /**
   * Protect the endpoint as an OAuth 2.1 resource server: every POST, GET and DELETE needs a
   * bearer token the verifier accepts (401/403 with a `WWW-Authenticate` challenge otherwise);
   * the verified caller reaches handlers as `ctx.auth`, and a session belongs to the principal
   * that created it. See docs/auth.md. `serveHttp` also serves the metadata document.
   */
  auth?: ResourceServerOptions | undefined;

  // --- Several processes (issue 12) ---
  /**
   * Serve legacy sessions from several processes behind a load balancer, without sticky routing
   * (see docs/http.md, "Several processes"). Each session is held by the process that answered
   * its `initialize` (its record in `backplane.sessions` names it); any other process relays
   * requests for it to that owner over `backplane.relay` and relays the answer back. The event
   * store defaults to `backplane.events`. The handler starts `relay.listen()` at once and closes
   * the relay at the end of `handler.close()`. With `sessions: false` the relay only carries
   * server-wide notifications.
   *
   * @example
   * const backplane = redisBackplane({ client, namespace: 'weather' });
   * const handler = createHttpHandler(server, { backplane });
   */
  backplane?: Backplane | undefined;
  /**
   * With a backplane: how often (ms) the processes at the other end of open relayed exchanges
   * are checked for liveness; a request waiting on a process that died fails within about this
   * time plus the relay's liveness window. Default 1,000.
   */
  relayCheckMs?: number;

  // --- Queued SSE output (clients that stop reading) ---
  /**
   * Bytes an SSE connection may have queued, unread by its client, before more is written; past
   * it the connection is aborted (its backlog freed; a resumable stream can be resumed). One
   * message of any size always goes out. Default 16 MiB.
   */
  maxQueuedBytesPerStream?: number;
  /**
   * Bytes queued across all SSE connections of the handler; past it, the connection with the most
   * queued is aborted. Default 128 MiB.
   */
  maxQueuedBytes?: number;
}

/**
 * Default `maxQueuedBytesPerStream`: 16 MiB.
 *
 * @example
 * createHttpHandler(server, { maxQueuedBytesPerStream: DEFAULT_MAX_QUEUED_BYTES_PER_STREAM / 4 });
 */
export const DEFAULT_MAX_QUEUED_BYTES_PER_STREAM = 16 * 1024 * 1024;
/**
 * Default `maxQueuedBytes`: 128 MiB across all SSE connections of a handler.
 *
 * @example
 * createHttpHandler(server, { maxQueuedBytes: DEFAULT_MAX_QUEUED_BYTES / 2 });
 */
export const DEFAULT_MAX_QUEUED_BYTES = 128 * 1024 * 1024;

/**
 * The queued-output limits of a handler, from its options.
 *
 * @example
 * const budget = outputBudgetOf({ maxQueuedBytes: 64 * 1024 * 1024 });
 */
export function outputBudgetOf(options: HttpHandlerOptions): OutputBudget {
  return new OutputBudget(
    Math.max(0, options.maxQueuedBytesPerStream ?? DEFAULT_MAX_QUEUED_BYTES_PER_STREAM),
    Math.max(0, options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES),
  );
}

/**
 * Loopback names accepted by default for `Host` and `Origin`.
 *
 * @example
 * createHttpHandler(server, { allowedHosts: [...LOOPBACK_HOSTS, 'mcp.example.com'] });
 */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Default `sessions.idleMs`: 30 minutes.
 *
 * @example
 * createHttpHandler(server, { sessions: { idleMs: DEFAULT_IDLE_MS / 3 } });
 */
export const DEFAULT_IDLE_MS = 30 * 60_000;
/**
 * Default `sessions.max`: 10,000 live sessions.
 *
 * @example
 * createHttpHandler(server, { sessions: { max: DEFAULT_MAX_SESSIONS / 10 } });
 */
export const DEFAULT_MAX_SESSIONS = 10_000;
/**
 * Default `sessions.recentWorkMs`: 5 minutes.
 *
 * @example
 * createHttpHandler(server, { sessions: { recentWorkMs: DEFAULT_RECENT_WORK_MS * 2 } });
 */
export const DEFAULT_RECENT_WORK_MS = 5 * 60_000;
/**
 * Default `sessions.maxPerClient`: 100 live sessions per client key (a tenth of `sessions.max`
 * when that is less).
 *
 * @example
 * createHttpHandler(server, { sessions: { clientKey: (c) => c.remoteAddress, maxPerClient: DEFAULT_MAX_PER_CLIENT / 4 } });
 */
export const DEFAULT_MAX_PER_CLIENT = 100;
/**
 * Default `maxBodyBytes`: 4 MiB; a larger POST body gets 413.
 *
 * @example
 * createHttpHandler(server, { maxBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES });
 */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Default `retryMs`: the `retry:` sent with each resumable SSE stream's priming event.
 *
 * @example
 * createHttpHandler(server, { retryMs: 2 * DEFAULT_RETRY_MS });
 */
export const DEFAULT_RETRY_MS = 1_000;
/**
 * Default `keepAliveMs`: interval of `: keep-alive` comments on open SSE streams.
 *
 * @example
 * createHttpHandler(server, { keepAliveMs: DEFAULT_KEEP_ALIVE_MS * 2 }); // behind a proxy with a 60 s idle cut
 */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/**
 * Default `relayCheckMs`: liveness checks of the peers of relayed exchanges, once a second.
 *
 * @example
 * createHttpHandler(server, { backplane, relayCheckMs: DEFAULT_RELAY_CHECK_MS / 2 });
 */
export const DEFAULT_RELAY_CHECK_MS = 1_000;
