/**
 * The web-standard Streamable HTTP server (legacy era, 2025-03-26 … 2025-11-25):
 * `(request: Request) => Promise<Response>`, usable from Node (see the node adapter), Deno, Bun,
 * Cloudflare Workers, Hono, ...
 */
import type { Logger } from '../../../core/engine/connection.js';
import { ErrorCode } from '../../../core/errors.js';
import type { Connectable } from '../../../server/server.js';
import { InMemoryEventStore } from './event-store.js';
import { handlePost } from './handle-post.js';
import { HostOriginPolicy } from './host-origin-policy.js';
import {
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_RETRY_MS,
  LOOPBACK_HOSTS,
  type HttpHandlerOptions,
} from './options.js';
import { discardBody, parseAccept, unsupportedVersion, versionOk } from './request-checks.js';
import {
  badRequest,
  emptyResponse,
  httpError,
  SESSION_HEADER,
  sessionNotFound,
  shuttingDown,
} from './responses.js';
import { SessionManager } from './session-manager.js';
import type { HttpServerTransport } from './session-transport.js';
import { KeepAlive } from './sse-writer.js';

/**
 * Per-request facts a host framework can pass along (they reach handlers as `ctx.info`).
 *
 * @example
 * app.all('/mcp', (c) => handler(c.req.raw, { authInfo: c.get('user') })); // Hono
 * // in a tool: ctx.info?.authInfo
 */
export interface HttpRequestExtra {
  /** Whatever your authentication middleware established (e.g. Express's `req.auth`). */
  authInfo?: unknown;
}

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
const ALLOW_STATEFUL = 'GET, POST, DELETE';

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
  const handler = ((request: Request, extra?: HttpRequestExtra) =>
    core.handle(request, extra)) as HttpHandler;
  handler.close = (closeOptions) => core.close(closeOptions?.deadlineMs ?? 5_000);
  Object.defineProperty(handler, 'sessionCount', { get: () => core.manager.total });
  return handler;
}

class HttpHandlerCore {
  readonly manager: SessionManager;
  private readonly policy: HostOriginPolicy | undefined;
  private readonly logger: Logger;
  readonly stateful: boolean;
  private closed: Promise<void> | undefined;

  constructor(
    target: Connectable,
    readonly options: HttpHandlerOptions,
  ) {
    this.logger = options.logger ?? silent;
    this.stateful = options.sessions !== false;
    const store =
      options.eventStore === false || !this.stateful
        ? undefined
        : (options.eventStore ?? new InMemoryEventStore());
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
    this.policy =
      options.dnsRebindingProtection === false
        ? undefined
        : new HostOriginPolicy(
            options.allowedHosts ?? LOOPBACK_HOSTS,
            options.allowedOrigins ?? LOOPBACK_HOSTS,
          );
  }

  async handle(request: Request, extra: HttpRequestExtra | undefined): Promise<Response> {
    try {
      if (this.closed) {
        discardBody(request);
        return shuttingDown();
      }
      const refused = this.checkHostAndOrigin(request);
      if (refused) return refused;
      switch (request.method) {
        case 'POST':
          return await handlePost(this, request, extra);
        case 'GET':
          return await this.get(request);
        case 'DELETE':
          return await this.delete(request);
        default:
          discardBody(request);
          return httpError(405, ErrorCode.InvalidRequest, 'Method not allowed', {
            allow: this.stateful ? ALLOW_STATEFUL : 'POST',
          });
      }
    } catch (error) {
      this.logger.error('HTTP request failed', error);
      return httpError(500, ErrorCode.InternalError, 'Internal server error');
    }
  }

  close(deadlineMs: number): Promise<void> {
    return (this.closed ??= this.manager.shutdown(deadlineMs));
  }

  get closing(): boolean {
    return this.closed !== undefined;
  }

  private checkHostAndOrigin(request: Request): Response | undefined {
    const policy = this.policy;
    if (!policy) return undefined;
    const host = request.headers.get('host') ?? hostOf(request.url);
    if (policy.hostAllowed(host) && policy.originAllowed(request.headers.get('origin'))) return undefined;
    discardBody(request);
    return httpError(403, ErrorCode.InvalidRequest, 'Forbidden: Host or Origin not allowed');
  }

  private async get(request: Request): Promise<Response> {
    if (!this.stateful || this.options.enableGetStream === false) {
      return httpError(
        405,
        ErrorCode.InvalidRequest,
        'Method not allowed: this server offers no GET stream',
        {
          allow: this.stateful ? 'POST, DELETE' : 'POST',
        },
      );
    }
    const accepts = parseAccept(request.headers.get('accept'));
    if (!(this.options.strictAccept ? accepts.sseListed : accepts.sse)) {
      return httpError(406, ErrorCode.InvalidRequest, 'Accept must list text/event-stream');
    }
    const found = this.session(request);
    if (found instanceof Response) return found;
    const lastEventId = request.headers.get('last-event-id');
    if (lastEventId !== null && this.manager.store) return found.resume(lastEventId, request.signal);
    if (found.standalone?.open) {
      return httpError(
        409,
        ErrorCode.InvalidRequest,
        'Conflict: a GET stream is already open for this session',
      );
    }
    return found.openStandalone(request.signal);
  }

  private async delete(request: Request): Promise<Response> {
    if (!this.stateful) {
      return httpError(405, ErrorCode.InvalidRequest, 'Method not allowed: stateless server', {
        allow: 'POST',
      });
    }
    const found = this.session(request);
    if (found instanceof Response) return found;
    await this.manager.terminate(found, 'deleted');
    return emptyResponse(200);
  }

  /** The session a GET or DELETE names, or the error to answer. */
  private session(request: Request): HttpServerTransport | Response {
    const sessionId = request.headers.get(SESSION_HEADER);
    if (sessionId === null) return badRequest('Bad Request: Mcp-Session-Id header is required');
    const found = this.manager.get(sessionId);
    if (!found) return sessionNotFound();
    if (!versionOk(request)) return unsupportedVersion(request);
    return found;
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
