/**
 * The shared shapes of the Streamable HTTP server, in one leaf file (it imports nothing of this
 * folder but leaf modules). The server reads top-down: the host (src/hosts/http: handler →
 * POST/GET → session transport), then this folder's wire pieces (request streams → SSE writers).
 */
import type { Logger } from '../../../core/engine/connection.js';
import type { JsonRpcMessage, RequestId } from '../../../core/jsonrpc.js';
import type { WaitUntilContext } from './background.js';
import type { EventStore } from './event-store.js';
import type { KeepAlive } from './keep-alive.js';
import type { OutputBudget } from './output-budget.js';

/**
 * Per-request facts a host framework can pass along (they reach handlers as `ctx.info`), and the
 * host's `waitUntil` for work that outlives the response (a Workers `ExecutionContext` fits as is).
 *
 * @example
 * app.all('/mcp', (c) => handler(c.req.raw, { authInfo: c.get('user') })); // Hono
 * // in a tool: ctx.info?.authInfo
 * // Cloudflare Workers: fetch(request, env, ctx) { return handler(request, ctx); }
 */
export interface HttpRequestExtra extends WaitUntilContext {
  /** Whatever your authentication middleware established (e.g. Express's `req.auth`). */
  authInfo?: unknown;
  /** The client's address, if the host knows it (the Node adapter passes it); see `sessions.clientKey`. */
  remoteAddress?: string | undefined;
}

/** Why a body could not be read: over the limit, or the read failed (client gone, broken framing). */
export type BodyFault = 'too-large' | 'unreadable';

/**
 * One inbound HTTP request, read lazily: nothing is built that the handler does not ask for.
 *
 * @example
 * const type = exchange.header('content-type');
 * const body = await exchange.readBody(4 * 1024 * 1024);
 * if (body === 'too-large') return httpError(413, ErrorCode.InvalidRequest, 'Too large');
 */
export interface HttpExchange {
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** A header by lower-case name (repeated headers as the runtime joins them), or null. */
  header(name: string): string | null;
  /** The request's authority: the `Host` header, or the host of the request URL. */
  host(): string | null;
  /** Every request header, built on first use (handlers read them through `ctx.info.headers`). */
  headers(): Headers;
  /**
   * The whole body as bytes, refusing more than `limit` bytes without buffering them (the rest
   * is drained). Call at most once.
   */
  readBody(limit: number): Promise<Uint8Array | BodyFault>;
  /** The body will not be read: let the runtime drain or drop it. */
  discardBody(): void;
  /**
   * `callback` runs once if the client goes away before the response is complete (at once if it
   * already has). One callback per exchange; a later call replaces it.
   */
  onClientGone(callback: () => void): void;
}

/**
 * Where a streamed (SSE) response body goes. Implemented per runtime: a web `ReadableStream`
 * controller, or a Node `ServerResponse`.
 *
 * @example
 * const sink: SseSink = { write, queued: () => res.writableLength, end: () => res.end(), abort: () => res.destroy() };
 */
export interface SseSink {
  /**
   * Write a chunk of the event stream. Returns the bytes that were queued, not yet taken by the
   * client, *before* this chunk (`Infinity` when the connection is gone), so the writer can spot
   * a stalled client without cutting one that was just sent a large message.
   */
  write(text: string): number;
  /** Bytes queued now that the client has not taken (0 when nothing is queued or it is gone). */
  queued(): number;
  /** End the body (server side). Never throws. */
  end(): void;
  /**
   * Abort the response at once, dropping what is queued (Node: destroy the socket; web: error the
   * body stream). For a client that stopped reading: ending gracefully would keep its backlog in
   * memory for as long as it keeps the socket open. Never throws.
   */
  abort(): void;
}

/**
 * An SSE response body: events written before a sink is attached wait in order.
 *
 * @example
 * reply.body.attach(sink); // flushes what was written so far, then writes live events
 */
export interface SseSource {
  attach(sink: SseSink): void;
}

/**
 * A response, before it becomes a web `Response` or is written to a Node socket. Header objects
 * are shared constants (never mutate them).
 *
 * @example
 * const reply: HttpReply = { status: 202, headers: NO_HEADERS, body: undefined };
 */
export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A complete body (JSON), an event stream, or nothing. */
  readonly body: string | SseSource | undefined;
}

/**
 * The handler core behind the web-standard entry, as a host adapter calls it. Never rejects:
 * failures become 500 replies.
 */
export type ExchangeHandler = (
  exchange: HttpExchange,
  extra: HttpRequestExtra | undefined,
) => Promise<HttpReply>;

/**
 * The three header sets a session answers with, each built once per session (on first use).
 *
 * @example
 * const headers = sessionHeaders('9f1c…');
 * reply = { status: 200, headers: headers.json, body };
 */
export interface SessionHeaders {
  readonly json: Readonly<Record<string, string>>;
  readonly sse: Readonly<Record<string, string>>;
  readonly bare: Readonly<Record<string, string>>;
}

/** What every session transport of one handler shares (one object, not one copy per session). */
export interface StreamHost {
  readonly store: EventStore | undefined;
  readonly retryMs: number;
  readonly keepAlive: KeepAlive | undefined;
  /** Queued-output limits of every SSE connection of the handler. */
  readonly budget: OutputBudget;
  readonly logger: Logger;
}

/** The handler-wide services a session transport (`T`) uses. */
export interface TransportHost<T> extends StreamHost {
  /** The session had HTTP activity (LRU order, idle clock). */
  touched(transport: T): void;
  /** The transport closed: forget its session. */
  transportClosed(transport: T): void;
  /** The session's initialize request was answered with an error: end the session. */
  initializeFailed(transport: T): void;
  /** One of the session's requests ended (a draining handler hands an idle session over then). */
  requestEnded?(transport: T): void;
}

/** Who learns that an SSE writer ended. */
export interface SseWriterOwner {
  /** Called once per writer: `byClient` when the client went away (or was cut), else a server-side end. */
  writerEnded(writer: unknown, byClient: boolean): void;
}

/** What a request stream needs from its session's transport. */
export interface StreamOwner {
  readonly host: StreamHost;
  readonly isClosed: boolean;
  /** Streams get event ids (and can be resumed). */
  readonly resumable: boolean;
  /** A 2026-07-28 request's connection: a JSON error answer takes its code's HTTP status. */
  readonly modern: boolean;
  readonly headers: SessionHeaders;
  /** A new stream id for a resumable request stream. */
  nextStreamId(requestId: RequestId): string;
  /** Route a message that has no open request stream (the standalone GET stream, or dropped). */
  toStandalone(message: JsonRpcMessage): Promise<void>;
  /** A pending POST or an SSE connection finished. */
  exchangeEnded(byClient: boolean): void;
  /** The session's initialize was answered; false when the session must not be announced. */
  handshakeAnswered(failed: boolean): boolean;
  /** The stream ended (answered, cancelled or cut): forget it. `finished`: kept for resumption. */
  streamEnded(
    stream: { readonly requestId: unknown; readonly streamId: string | undefined },
    finished: boolean,
  ): void;
  /** The engine's hook: the transport ended this request itself (see `Transport.oninboundlost`). */
  readonly oninboundlost: ((id: RequestId, cause?: unknown) => void) | undefined;
}
