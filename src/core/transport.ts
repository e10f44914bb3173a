/**
 * The transport contract. A transport is a message stream: the engine reads it with
 * `for await (const message of transport)`, and everything after that loop is teardown. Ending
 * the iteration is how a transport says "the peer is gone" (EOF, child exit, DELETE, ...).
 */
import type { JsonRpcErrorResponse, JsonRpcMessage, RequestId } from './jsonrpc.js';

/**
 * Routing hints for {@link Transport.send}.
 *
 * @example
 * await transport.send({ jsonrpc: '2.0', id: 7, result: {} }, { relatedRequestId: 7 });
 */
export interface SendOptions {
  /**
   * The inbound request this message belongs to (a response, or a notification/request a handler
   * made). Streamable HTTP uses it to pick the POST stream; stream transports ignore it.
   */
  relatedRequestId?: RequestId | undefined;
  /**
   * Extra HTTP headers for the HTTP request that carries this message (2026-07-28: `Mcp-Param-*`).
   * Stream transports ignore them.
   */
  headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * What a transport knows about an inbound message beyond its JSON (HTTP headers, auth).
 *
 * @example
 * server.tool('whoami', {}, (_a, ctx) => ctx.info?.authInfo?.clientId ?? 'anonymous');
 */
export interface MessageInfo {
  /** Request headers of the HTTP request that carried the message. */
  headers?: Headers;
  /** Whatever an authentication layer attached to the HTTP request. */
  authInfo?: unknown;
  /**
   * Streamable HTTP (legacy era, resumable sessions only): end the HTTP connection of this
   * request's SSE stream now, without ending the stream. The client reconnects with GET +
   * `Last-Event-ID` and gets what was sent meanwhile (the result included). Absent when the
   * stream cannot be resumed (no event store, stateless mode, protocol version before 2025-11-25).
   */
  closeSSEStream?: () => void;
  /**
   * Client side: the outbound request whose response stream carried this message (Streamable
   * HTTP: a server→client request sent on a POST's SSE stream). When that outbound request is
   * abandoned (timeout, caller abort, lost response), the engine aborts the handler of this
   * message too and writes no answer for it: the server side of the exchange is gone.
   */
  relatedRequestId?: RequestId;
}

/**
 * Something the transport read that is not a JSON value (bad JSON, invalid UTF-8, a line over the
 * size limit). The engine answers `reply` and keeps serving. `excerpt` is the start of what was
 * read, as text (unescaped), when the transport kept it: for reports, never for the wire.
 *
 * @example
 * inbox.push(new InboundFault(parseErrorReply(), line.slice(0, 200)));
 */
export class InboundFault {
  constructor(
    readonly reply: JsonRpcErrorResponse,
    readonly excerpt?: string,
  ) {}
}

/**
 * What a transport's iterator may offer besides `next()`: the next message it already holds,
 * handed over synchronously. The engine drains a burst (the lines of one stdio chunk) with it, one
 * promise and one microtask per burst instead of per message. Keel's inboxes implement it; a
 * transport without it is read with `next()` alone.
 *
 * @example
 * const queued = inbox.poll(); // { value, done: false }, or undefined when next() would wait
 */
export interface PollableIterator<T = unknown> extends AsyncIterator<T> {
  /** The next queued item, `{ done: true }` once ended and empty, or undefined if `next()` would wait. */
  poll(): IteratorResult<T> | undefined;
}

/**
 * A bidirectional message stream.
 *
 * - Iterating yields parsed JSON values (validated by the engine) or {@link InboundFault}s. The
 *   iteration ends when the read side ends. The iterator's `return()` must end a pending `next()`
 *   promptly: it is how the engine stops reading on a local close.
 * - `send` may reject when the transport is dead; the engine treats that as "dropped" and never
 *   lets it escape.
 * - `close` is idempotent; it ends reading and writing and releases every resource.
 *
 * @example
 * const [a, b] = createMemoryPair();
 * await a.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
 * for await (const message of b) console.log(message);
 */
export interface Transport extends AsyncIterable<unknown> {
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  close(): Promise<void>;
  /** False once the write side is known to be unusable (closed locally, EPIPE, ...). */
  readonly writable: boolean;
  /** The last I/O error the transport saw; becomes `cause` of connection-closed errors. */
  readonly lastError?: unknown;
  /** HTTP session id, when the transport has one. */
  readonly sessionId?: string | undefined;
  /**
   * True when every inbound request has a response stream of its own that ends with its answer
   * (Streamable HTTP). Undefined on one shared channel (stdio, memory): there the server ends a
   * 2026-07-28 `subscriptions/listen` with `notifications/cancelled` instead of closing a stream.
   */
  readonly requestStreams?: boolean | undefined;
  /**
   * Set by the engine when it starts reading. A transport calls it when the answer to outbound
   * request `id` can no longer arrive although the connection lives on (Streamable HTTP: that
   * request's response stream ended and could not be resumed). The engine then fails that one
   * request with `ConnectionClosedError` (`cause` = `cause`) and cancels it on the wire.
   */
  onrequestlost?: ((id: RequestId, cause?: unknown) => void) | undefined;
  /**
   * Set by the engine when it starts reading. A transport calls it when it has ended inbound
   * request `id` itself (Streamable HTTP: the event store evicted its live stream and the client
   * got an error in its place): nothing the handler produces can be delivered any more, so the
   * engine aborts the handler (`ConnectionClosedError`, `cause` = `cause`) and writes nothing for it.
   */
  oninboundlost?: ((id: RequestId, cause?: unknown) => void) | undefined;
  /**
   * Read once at teardown: whether each inbound request still unanswered gets one `-32000
   * Connection closed` error. A transport that knows why it closed says so here (Streamable HTTP:
   * no on DELETE, yes on expiry, eviction and shutdown); `undefined` leaves it to
   * `ConnectionOptions.answerOnClose`.
   */
  readonly answerOnClose?: boolean | undefined;
  /**
   * Called by the engine once it has processed the peer's cancellation of inbound request `id`
   * (handler aborted, nested requests cancelled on the wire). No response will follow for it;
   * Streamable HTTP ends that request's POST stream here, after what the abort wrote.
   */
  requestCancelled?(id: RequestId): void;
  /** Extra facts about an inbound message object yielded by this transport. */
  messageInfo?(message: object): MessageInfo | undefined;
}
