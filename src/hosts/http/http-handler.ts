/**
 * The web-standard Streamable HTTP server, both eras (legacy sessions, 2025-03-26 … 2025-11-25,
 * and 2026-07-28 requests): `(request: Request) => Promise<Response>`, usable from Node (see the
 * node adapter), Deno, Bun, Cloudflare Workers, Hono, ...
 */
import type { AuthInfo } from '../../core/auth.js';
import type { Logger } from '../../core/engine/connection.js';
import { ErrorCode, httpStatusForCode } from '../../core/errors.js';
import type { Connectable } from '../../server/server.js';
import { AuthGate } from './auth-gate.js';
import { backgroundOf, type Detach } from '../../transports/http/server-wire/background.js';
import { attachBackplane } from './cluster/attach.js';
import { DRAINING, MOVED } from './cluster/tunnel-replies.js';
import type { Tunnel } from './cluster/tunnel.js';
import { InMemoryEventStore } from '../../transports/http/server-wire/event-store.js';
import { SERVE_EXCHANGE } from '../../transports/http/server-wire/exchange.js';
import { handlePost } from './handle-post.js';
import { describeRejection, HostOriginPolicy } from './host-origin-policy.js';
import {
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_RETRY_MS,
  LOOPBACK_HOSTS,
  type HttpHandlerOptions,
} from './options.js';
import { isModernClient } from '../../transports/http/server-wire/modern-headers.js';
import { checkVersion, parseAccept } from '../../transports/http/server-wire/request-checks.js';
import {
  emptyReply,
  httpError,
  SESSION_HEADER,
  SESSION_NOT_FOUND,
  SESSION_REQUIRED,
  SHUTTING_DOWN,
} from '../../transports/http/server-wire/responses.js';
import { SessionManager } from './session-manager.js';
import { HttpServerTransport } from './session-transport.js';
import { KeepAlive } from '../../transports/http/server-wire/keep-alive.js';
import { resumeStream } from './resume.js';
import type {
  ExchangeHandler,
  HttpExchange,
  HttpReply,
  HttpRequestExtra,
} from '../../transports/http/server-wire/types.js';
import { toResponse, WebExchange } from '../../transports/http/server-wire/web-exchange.js';

export type { HttpRequestExtra } from '../../transports/http/server-wire/types.js';

/**
 * A Streamable HTTP endpoint as a fetch-style function, plus graceful shutdown.
 *
 * @example
 * const handler = createHttpHandler(server);
 * Deno.serve((request) => handler(request));
 * // on shutdown:
 * await handler.close({ deadlineMs: 2_000 });
 */
export interface HttpHandler {
  (request: Request, extra?: HttpRequestExtra): Promise<Response>;
  /**
   * Stop accepting (new requests get 503), end every session through the usual cleanup (handlers
   * aborted, streams ended), and resolve within `deadlineMs` (default 5,000). Idempotent.
   */
  close(options?: { deadlineMs?: number }): Promise<void>;
  /** Live sessions (plus stateless exchanges in flight). */
  readonly sessionCount: number;
}

const silent: Logger = { debug() {}, error() {} };

const INTERNAL_ERROR = Object.freeze(
  httpError(httpStatusForCode(ErrorCode.InternalError), ErrorCode.InternalError, 'Internal server error'),
);
const NOT_SSE = Object.freeze(httpError(406, ErrorCode.InvalidRequest, 'Accept must list text/event-stream'));
const STREAM_CONFLICT = Object.freeze(
  httpError(409, ErrorCode.InvalidRequest, 'Conflict: a GET stream is already open for this session'),
);
/** 405 replies by method group and mode: built once. */
const NOT_ALLOWED = {
  stateful: Object.freeze(
    httpError(405, ErrorCode.InvalidRequest, 'Method not allowed', { allow: 'GET, POST, DELETE' }),
  ),
  stateless: Object.freeze(httpError(405, ErrorCode.InvalidRequest, 'Method not allowed', { allow: 'POST' })),
  noGetStream: Object.freeze(
    httpError(405, ErrorCode.InvalidRequest, 'Method not allowed: this server offers no GET stream', {
      allow: 'POST, DELETE',
    }),
  ),
  statelessGet: Object.freeze(
    httpError(405, ErrorCode.InvalidRequest, 'Method not allowed: this server offers no GET stream', {
      allow: 'POST',
    }),
  ),
  /** 2026-07-28 has no sessions, no GET stream and no DELETE: its endpoint is POST-only. */
  modern: Object.freeze(
    httpError(405, ErrorCode.InvalidRequest, 'Method not allowed: 2026-07-28 requests use POST only', {
      allow: 'POST',
    }),
  ),
  statelessDelete: Object.freeze(
    httpError(405, ErrorCode.InvalidRequest, 'Method not allowed: stateless server', { allow: 'POST' }),
  ),
};

/**
 * Serve `target` (a `Server` or `McpServer`) over Streamable HTTP. Each session gets its own
 * connection; a POST is answered with JSON, or with SSE once the handler sends related messages.
 *
 * @example
 * const handler = createHttpHandler(server, { sessions: { idleMs: 600_000, max: 1_000 } });
 * app.all('/mcp', (c) => handler(c.req.raw)); // Hono
 */
export function createHttpHandler(target: Connectable, options: HttpHandlerOptions = {}): HttpHandler {
  const core = new HttpHandlerCore(target, options);
  const handler = (async (request: Request, extra?: HttpRequestExtra) => {
    const exchange = new WebExchange(request);
    return toResponse(await core.serve(exchange, extra), exchange);
  }) as HttpHandler & { [SERVE_EXCHANGE]?: ExchangeHandler };
  handler.close = (closeOptions) => core.close(closeOptions?.deadlineMs ?? 5_000);
  // Host adapters that can skip the web objects find the core here (see `exchangeHandlerOf`).
  handler[SERVE_EXCHANGE] = (exchange, extra) => core.serve(exchange, extra);
  Object.defineProperty(handler, 'sessionCount', { get: () => core.manager.total });
  return handler;
}

class HttpHandlerCore {
  readonly manager: SessionManager;
  private readonly policy: HostOriginPolicy | undefined;
  private readonly logger: Logger;
  readonly stateful: boolean;
  /** The resource server's checks (`options.auth`), if the endpoint is protected. */
  readonly gate: AuthGate | undefined;
  /** With a backplane: session routing between processes. */
  private readonly tunnel: Tunnel | undefined;
  private closed: Promise<void> | undefined;
  /** Draining with a backplane (issue 28): requests are routed or passed to peers, not refused. */
  private passOn = false;
  /** Closed by a drain: what still arrives after it gets 503 with Retry-After (peers serve it). */
  private drained = false;

  constructor(
    target: Connectable,
    readonly options: HttpHandlerOptions,
  ) {
    this.logger = options.logger ?? silent;
    this.stateful = options.sessions !== false;
    const store =
      options.eventStore === false || !this.stateful
        ? undefined
        : (options.eventStore ?? options.backplane?.events ?? new InMemoryEventStore());
    const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    const keepAlive = keepAliveMs > 0 ? new KeepAlive(keepAliveMs) : undefined;
    this.manager = new SessionManager(
      target,
      options,
      store,
      keepAlive,
      this.logger,
      options.retryMs ?? DEFAULT_RETRY_MS,
    );
    this.tunnel = attachBackplane(target, options, this.manager, this.logger, (exchange, extra) =>
      this.serve(exchange, extra, false),
    );
    this.gate = options.auth ? new AuthGate(options.auth, target, this.logger) : undefined;
    this.policy =
      options.dnsRebindingProtection === false
        ? undefined
        : new HostOriginPolicy(
            options.allowedHosts ?? LOOPBACK_HOSTS,
            options.allowedOrigins ?? LOOPBACK_HOSTS,
          );
  }

  /**
   * Answer one exchange. Never rejects: a failure is a 500. `route`: a request for a session
   * another process owns is relayed there (false for exchanges relayed to this process).
   */
  serve(exchange: HttpExchange, extra: HttpRequestExtra | undefined, route = true): Promise<HttpReply> {
    // Read before `extra` is copied: a Workers ExecutionContext's method is on its prototype.
    const detach = backgroundOf(extra);
    // Without `waitUntil` (Node, Bun, Deno) nothing follows the answer: no async frame of its own
    // per request (`answer` never rejects).
    if (detach === undefined) return this.answer(exchange, extra, route, undefined);
    return this.answerThenDetach(exchange, extra, route, detach);
  }

  private async answerThenDetach(
    exchange: HttpExchange,
    extra: HttpRequestExtra | undefined,
    route: boolean,
    detach: Detach,
  ): Promise<HttpReply> {
    try {
      return await this.answer(exchange, extra, route, detach);
    } finally {
      // Shared session records are written in the background (create, touch, end of a session).
      if (this.manager.records) detach(this.manager.records.settled());
    }
  }

  /**
   * Never rejects. The common request, a POST with nothing to relay and no auth gate, takes one
   * promise step here instead of an async frame (its generator and the promise of each `await`
   * are garbage on every request); anything else takes {@link answerFully}.
   */
  private answer(
    exchange: HttpExchange,
    extra: HttpRequestExtra | undefined,
    route: boolean,
    detach: Detach | undefined,
  ): Promise<HttpReply> {
    if (this.gate !== undefined || (this.tunnel && this.stateful) || exchange.method !== 'POST')
      return this.answerFully(exchange, extra, route, detach);
    try {
      const refused = this.refusal(exchange);
      if (refused !== undefined) return Promise.resolve(refused);
      return handlePost(this, exchange, extra, undefined, detach).then(undefined, this.failed);
    } catch (error) {
      return Promise.resolve(this.failed(error));
    }
  }

  /** A 500 for whatever failed while answering (logged). */
  private readonly failed = (error: unknown): HttpReply => {
    this.logger.error('HTTP request failed', error);
    return INTERNAL_ERROR;
  };

  /** The answer to an exchange refused before anything else: shutting down, or a foreign host or origin. */
  private refusal(exchange: HttpExchange): HttpReply | undefined {
    // Draining (issue 28): requests are still routed, passed to peers or served (see answerFully).
    if (this.closed && !this.passOn) {
      exchange.discardBody();
      return this.drained ? DRAINING : SHUTTING_DOWN;
    }
    const refused = this.policy && describeRejection(this.policy, exchange.host(), exchange.header('origin'));
    if (refused === undefined) return undefined;
    exchange.discardBody();
    // No `id`: the transport spec's 403 body is "a JSON-RPC error response that has no id".
    return httpError(403, ErrorCode.InvalidRequest, refused);
  }

  private async answerFully(
    exchange: HttpExchange,
    extra: HttpRequestExtra | undefined,
    route: boolean,
    detach: Detach | undefined,
  ): Promise<HttpReply> {
    try {
      const refused = this.refusal(exchange);
      if (refused !== undefined) return refused;
      if (this.tunnel && this.stateful) {
        // Before auth: the owner runs the whole pipeline; this process only picks where it runs.
        const sessionId = exchange.header(SESSION_HEADER);
        if (!route) {
          // Relayed here for a session this process does not hold (any more): the forwarder
          // routes it again from the record (it moved, or ended: then 404 there).
          if (sessionId !== null && !this.manager.has(sessionId)) {
            await this.manager.handingOver(sessionId);
            // A session handed over and passed here by a draining process is adopted here.
            if (!(await this.tunnel.adoptHere(sessionId))) {
              exchange.discardBody();
              return MOVED;
            }
          }
        } else if (sessionId === null) {
          // Draining: a new session, or a 2026-07-28 request, is served by a peer.
          if (this.passOn) return await this.tunnel.toPeer(exchange, extra);
        } else if (!this.manager.has(sessionId)) {
          const relayed = await this.tunnel.route(exchange, sessionId, extra);
          if (relayed && 'status' in relayed) return relayed;
          // Served here after all (adopted, or its owner is gone): the body the tunnel already read.
          if (relayed) exchange = relayed;
        }
      }
      const method = exchange.method;
      let auth: AuthInfo | undefined;
      if (this.gate && (method === 'POST' || method === 'GET' || method === 'DELETE')) {
        // Before the body is read: an unauthenticated client costs no body buffering.
        const checked = await this.gate.authenticate(exchange);
        if ('status' in checked) {
          exchange.discardBody();
          return checked;
        }
        // The verified caller wins over whatever the host passed.
        auth = checked;
        extra = { ...extra, authInfo: auth };
      }
      switch (method) {
        case 'POST':
          return await handlePost(this, exchange, extra, auth, detach);
        case 'GET':
          return await this.get(exchange, auth);
        case 'DELETE':
          return this.delete(exchange, auth, detach);
        default:
          exchange.discardBody();
          return this.stateful ? NOT_ALLOWED.stateful : NOT_ALLOWED.stateless;
      }
    } catch (error) {
      return this.failed(error);
    }
  }

  close(deadlineMs: number): Promise<void> {
    return (this.closed ??= this.shutdown(deadlineMs));
  }

  /**
   * Sessions first (their last chunks still reach relayed clients), then the relay: one deadline
   * for both, each step getting only the time left.
   */
  private async shutdown(deadlineMs: number): Promise<void> {
    const end = Date.now() + deadlineMs;
    // With a backplane and another process to take them, sessions are handed over (issue 28);
    // the last process standing ends them (and deletes their records) as a lone process does.
    // Until the relay closes, requests that still arrive are passed on, never refused (also
    // while the peers are asked for).
    this.passOn = this.tunnel !== undefined && this.manager.records !== undefined;
    if (this.tunnel && this.passOn && (await this.tunnel.hasPeers())) {
      this.drained = true;
      await this.manager.drain(Math.max(0, end - Date.now()));
      await this.tunnel.quiesce(Math.max(0, end - Date.now()));
    } else {
      this.passOn = false;
      await this.manager.shutdown(Math.max(0, end - Date.now()));
    }
    await this.tunnel?.close(Math.max(0, end - Date.now()));
    this.passOn = false;
  }

  get closing(): boolean {
    return this.closed !== undefined;
  }

  private async get(exchange: HttpExchange, auth: AuthInfo | undefined): Promise<HttpReply> {
    if (this.modernClient(exchange)) return NOT_ALLOWED.modern;
    if (!this.stateful) return NOT_ALLOWED.statelessGet;
    if (this.options.enableGetStream === false) return NOT_ALLOWED.noGetStream;
    const accepts = parseAccept(exchange.header('accept'));
    if (!(this.options.strictAccept ? accepts.sseListed : accepts.sse)) return NOT_SSE;
    const found = this.session(exchange, auth);
    if (!(found instanceof HttpServerTransport)) return found;
    const lastEventId = exchange.header('last-event-id');
    if (lastEventId !== null && this.manager.store) return resumeStream(found, lastEventId, exchange);
    if (found.standalone.writer?.open) return STREAM_CONFLICT;
    return found.standalone.open(exchange);
  }

  private delete(exchange: HttpExchange, auth: AuthInfo | undefined, detach: Detach | undefined): HttpReply {
    if (this.modernClient(exchange)) return NOT_ALLOWED.modern;
    if (!this.stateful) return NOT_ALLOWED.statelessDelete;
    const found = this.session(exchange, auth);
    if (!(found instanceof HttpServerTransport)) return found;
    // Its handlers are aborted now; what its end writes follows this reply (see `terminate`).
    const ended = this.manager.terminate(found, 'deleted');
    // That end, and an asynchronous event store dropping its streams, outlive the reply.
    detach?.(ended.then(() => found.closeWrites));
    return emptyReply(200);
  }

  /** A GET or DELETE from a 2026-07-28 client: no session id, a modern version header. */
  private modernClient(exchange: HttpExchange): boolean {
    return exchange.header(SESSION_HEADER) === null && isModernClient(exchange);
  }

  /** The session a GET or DELETE names, or the error to answer. */
  private session(exchange: HttpExchange, auth: AuthInfo | undefined): HttpServerTransport | HttpReply {
    const sessionId = exchange.header(SESSION_HEADER);
    if (sessionId === null) return SESSION_REQUIRED;
    const found = this.manager.find(sessionId, auth);
    if (!found) return SESSION_NOT_FOUND;
    return checkVersion(exchange) ?? found;
  }
}
