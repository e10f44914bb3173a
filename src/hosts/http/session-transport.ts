/**
 * The Streamable HTTP server transport of one connection: a legacy session's (2025-03-26 …
 * 2025-11-25), or a single exchange's (a stateless handler's, or one 2026-07-28 request's). The
 * handler feeds it POSTed messages and hands it GET connections; the engine reads the inbox and
 * `send`s, and `send` routes each message to the one stream it belongs on: its request's POST
 * stream while that is open, else the standalone GET stream (see
 * transports/http/server-wire/standalone-stream.ts), else nowhere (dropped at debug level). It
 * lives with the host, not in transports/, because it holds the `ServerSession` it feeds.
 */
import { ConnectionClosedError } from '../../core/errors.js';
import { Inbox } from '../../core/inbox.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../core/jsonrpc.js';
import type { MessageInfo, SendOptions, Transport } from '../../core/transport.js';
import type { ServerSession } from '../../server/server-session.js';
import { allOf, EndWaiters, TrackedReader } from '../../transports/http/server-wire/background.js';
import { infoOf, tagMessage } from '../../transports/http/server-wire/message-info.js';
import type { SessionEndReason } from './options.js';
import { RequestStream } from '../../transports/http/server-wire/request-stream.js';
import { sessionHeaders, type SessionHeaders } from '../../transports/http/server-wire/responses.js';
import { SseWriter } from '../../transports/http/server-wire/sse-writer.js';
import { StandaloneStream } from '../../transports/http/server-wire/standalone-stream.js';
import { RetainedStreams } from './retained-streams.js';
import { forgetStream, RESOLVED } from '../../transports/http/server-wire/stream-events.js';
import { requestStreamId } from '../../transports/http/server-wire/stream-ids.js';
import type {
  HttpExchange,
  HttpReply,
  SseWriterOwner,
  StreamOwner,
  TransportHost as GenericTransportHost,
} from '../../transports/http/server-wire/types.js';

/** The handler-wide services a session transport uses. */
export type TransportHost = GenericTransportHost<HttpServerTransport>;

/**
 * One session's transport (or one stateless exchange's). Created by the handler; users meet it
 * only through `ctx.info`. Members marked internal are shared with the other server files.
 *
 * @example
 * const transport = new HttpServerTransport(host, crypto.randomUUID());
 * transport.session = server.connect(transport);
 */
export class HttpServerTransport implements Transport, StreamOwner {
  private readonly inbox = new Inbox<unknown>();
  /**
   * The engine's iterator, which also tells when it has routed what was pushed (see `routed`);
   * allocated on first use.
   */
  private reads: TrackedReader<unknown> | undefined;
  /** Who waits for a request stream to end (see `requestSettled`). */
  private endWaiters: EndWaiters | undefined;
  /** @internal The event store's writes caused by `close()`, when asynchronous. */
  closeWrites: Promise<unknown> | undefined;
  /** Open request streams by request id; allocated per busy spell, dropped when the last ends. */
  private requests: Map<RequestId, RequestStream> | undefined;
  private streamCount = 0;
  /**
   * @internal Set when the session was adopted from another process (issue 28): its new streams'
   * ids must not repeat the ids its previous owner gave (their events are still in the store).
   */
  declare streamPrefix: string | undefined;
  /** @internal Handed over to another process: closing must leave its streams in the event store. */
  declare keepStreams: true | undefined;
  private closed = false;
  private initialized = false;
  private replyHeaders: SessionHeaders | undefined;
  lastError: unknown;
  /**
   * While a DELETE's reply goes out: the writes and the close the session's end causes, in order,
   * run by `releaseOutput` (see `SessionManager.terminate`).
   */
  private held: (() => void)[] | undefined;
  /** Set by the engine: see `Transport.oninboundlost`. */
  oninboundlost: ((id: RequestId, cause?: unknown) => void) | undefined;
  /** The standalone GET stream, built on first use (an idle session stays small). */
  private standaloneStream: StandaloneStream | undefined;
  /** Finished streams that can still be resumed (allocated on the first). */
  private retained: RetainedStreams | undefined;
  /** @internal Set by the handler right after `connect`. */
  session: ServerSession | undefined;
  /** @internal Open HTTP exchanges (pending POSTs and SSE connections); 0 = idle. */
  attached = 0;
  /** @internal Time of the last HTTP activity. */
  lastSeen = Date.now();
  /** @internal The one cleanup path has started. */
  ending = false;
  /** @internal Serves one 2026-07-28 request (set by the POST handler). */
  modern = false;
  /** With auth on: the principal whose token created the session (see auth-gate.ts). */
  owner: string | undefined;
  /** @internal Why the session ended (set by the session manager). */
  endReason: SessionEndReason | undefined;

  constructor(
    /** @internal */ readonly host: TransportHost,
    readonly sessionId: string | undefined,
  ) {}

  /** @internal The response header sets of this session (built on first use). */
  get headers(): SessionHeaders {
    return (this.replyHeaders ??= sessionHeaders(this.sessionId));
  }

  /** @internal The standalone GET stream. */
  get standalone(): StandaloneStream {
    return (this.standaloneStream ??= new StandaloneStream(this));
  }

  /** Each request is answered on its own stream (see `Transport.requestStreams`). A getter: a
   * field would be one more word per session. */
  get requestStreams(): true {
    return true;
  }

  get writable(): boolean {
    return !this.closed;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * docs/http.md, "Lifecycle: how sessions end": however the session table ends a session (DELETE, expiry,
   * eviction, shutdown), each unanswered request whose stream is open gets one `-32000 Connection
   * closed`, so a client still reading settles at once. A DELETE may come from another holder of
   * the session id than the client waiting on a stream, and a client whose stream just ends does
   * not always settle (python-sdk 1.29 resumes, gets 404 and leaves its call pending). The order
   * that spares the client that sent the DELETE is `SessionManager.terminate`'s.
   */
  get answerOnClose(): boolean | undefined {
    return this.endReason === undefined || this.endReason === 'closed' ? undefined : true;
  }

  /** Streams get event ids (and can be resumed) only with a store, a session and ≥ 2025-11-25. */
  get resumable(): boolean {
    return (
      this.sessionId !== undefined &&
      this.host.store !== undefined &&
      (this.session?.protocolVersion ?? '') >= '2025-11-25'
    );
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    // Counting from the engine's first read: `routed` relies on the number of reads.
    return this.reader;
  }

  /** The engine's iterator and read counter, made on first use. */
  private get reader(): TrackedReader<unknown> {
    return (this.reads ??= new TrackedReader(this.inbox));
  }

  private push(message: unknown): void {
    if (!this.inbox.done) this.reader.pushed();
    this.inbox.push(message);
  }

  /**
   * @internal Resolves once the engine has routed the message pushed last (a notification's
   * handler was called, a response reached its request), or the transport closed.
   */
  routed(): Promise<void> {
    if (this.closed) return RESOLVED;
    return this.reader.routed();
  }

  /**
   * @internal Resolves once the stream of request `id` has ended and the event store has written
   * what its end causes (or the transport closed). Never rejects.
   */
  requestSettled(id: RequestId): Promise<unknown> {
    const stream = this.requests?.get(id);
    if (!stream || this.closed) return RESOLVED;
    return (this.endWaiters ??= new EndWaiters()).wait(stream);
  }

  messageInfo(message: object): MessageInfo | undefined {
    return infoOf(message);
  }

  /** @internal A POSTed notification or response. */
  accept(message: object, info: MessageInfo): void {
    tagMessage(message, info);
    // A cancel is only read here: its stream ends in `requestCancelled`, once the engine has
    // written what the cancel causes (the nested requests' cancels) on that stream.
    this.push(message);
  }

  /** @internal Stateless mode: the POST carried no request; end the connection once it is read. */
  endInput(): void {
    this.inbox.end();
  }

  /** @internal A request of this session is still open (running, or its stream not yet ended). */
  get busy(): boolean {
    return (this.requests?.size ?? 0) > 0;
  }

  /** @internal True when a request with this id is still in flight on this session. */
  hasRequest(id: RequestId): boolean {
    return this.requests?.has(id) ?? false;
  }

  /**
   * @internal A POSTed request. Resolves with the HTTP reply once it is decided: JSON when the
   * result comes first (`json` allowed), SSE from the first related message (or at once when
   * `eager`, or when the client takes SSE only).
   */
  request(
    message: JsonRpcRequest,
    info: MessageInfo,
    json: boolean,
    sse: boolean,
    eager: boolean,
    exchange: HttpExchange,
  ): Promise<HttpReply> {
    return new Promise<HttpReply>((resolve) => {
      const stream = new RequestStream(this, message.id, message.method, resolve, json, sse);
      (this.requests ??= new Map()).set(message.id, stream);
      this.attached++;
      if (sse && this.resumable) info.closeSSEStream = () => stream.closeConnection();
      tagMessage(message, info);
      if ((eager || !json) && sse) stream.upgrade();
      exchange.onClientGone(() => stream.clientLeft());
      this.push(message);
    });
  }

  /** @internal The live request stream with this stream id. */
  streamById(streamId: string): RequestStream | undefined {
    if (this.requests)
      for (const stream of this.requests.values()) if (stream.streamId === streamId) return stream;
    return undefined;
  }

  /** @internal A writer for this session's `exchange`, counted as an open exchange. */
  newWriter(owner: SseWriterOwner, exchange: HttpExchange): SseWriter {
    const writer = new SseWriter(owner, this.host);
    this.attached++;
    exchange.onClientGone(() => writer.gone());
    return writer;
  }

  /** @internal From now on, messages and the close wait for `releaseOutput`. */
  holdOutput(): void {
    this.held ??= [];
  }

  /** @internal Run what waited, in order (writes, then the close if it was asked meanwhile). */
  releaseOutput(): void {
    const held = this.held;
    this.held = undefined;
    if (held) for (const run of held) run();
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new ConnectionClosedError('HTTP session closed'));
    const held = this.held;
    if (held) {
      return new Promise<void>((resolve, reject) =>
        held.push(() => void this.send(message, options).then(resolve, reject)),
      );
    }
    const isResponse = !('method' in message);
    const target = isResponse ? (message as { id: RequestId | null }).id : options?.relatedRequestId;
    if (target !== undefined && target !== null) {
      const stream = this.requests?.get(target);
      if (stream) return stream.deliver(message, isResponse);
      if (isResponse) {
        this.host.logger.debug(`dropped the response to ${String(target)}: its stream has ended`);
        return RESOLVED;
      }
    }
    return this.standalone.send(message);
  }

  /** The engine processed the peer's cancel of `id`: end that request's stream, unanswered. */
  requestCancelled(id: RequestId): void {
    this.requests?.get(id)?.cancelled();
  }

  close(): Promise<void> {
    if (this.closed) return RESOLVED;
    const held = this.held;
    if (held) return new Promise<void>((resolve) => held.push(() => void this.close().then(resolve)));
    this.closed = true;
    void this.inbox.return();
    const requests = this.requests;
    this.requests = undefined;
    const writes: (Promise<unknown> | undefined)[] = [];
    // Handed over (issue 28): the process that adopts the session resumes its streams from the
    // store, so they stay there (each expires with the store's TTL).
    const forget = this.keepStreams !== true;
    if (requests)
      for (const stream of requests.values()) {
        stream.abandon();
        if (forget && stream.streamId !== undefined) writes.push(forgetStream(this.host, stream.streamId));
      }
    this.standaloneStream?.close(forget);
    if (forget) writes.push(this.retained?.clear());
    this.closeWrites = allOf(writes);
    this.reads?.settleAll();
    this.endWaiters?.endAll(this.closeWrites);
    this.host.transportClosed(this);
    return RESOLVED;
  }

  /** @internal A pending POST or an SSE connection finished. */
  exchangeEnded(byClient: boolean): void {
    this.attached--;
    if (this.closed) return;
    this.host.touched(this);
    // Stateless: nobody can resume, so a client that left takes its request with it: a modern
    // request is cancelled; anything else ends with `connection.close()`, not `session.close()`
    // (subscriptions get no graceful result on a stream nobody reads).
    if (byClient && this.sessionId === undefined) {
      if (!this.cancelLeftRequests()) void this.session?.connection.close();
    } else this.finishIfStateless();
  }

  /**
   * 2026-07-28: a closed request stream *is* that request's cancel (spec: cancellation), so the
   * engine is told as if `notifications/cancelled` had come: the handler aborts with
   * CancelledByPeerError (not a teardown), and the connection closes once the stream has ended.
   * False when there is nothing to cancel (legacy, or the request was already answered).
   */
  private cancelLeftRequests(): boolean {
    if (!this.modern || !this.requests?.size) return false;
    for (const requestId of this.requests.keys()) {
      const reason = 'the client closed the response stream';
      this.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });
    }
    return true;
  }

  /** @internal Messages with no open request stream. */
  toStandalone(message: JsonRpcMessage): Promise<void> {
    return this.standalone.send(message);
  }

  /** @internal A new stream id for a resumable request stream. */
  nextStreamId(requestId: RequestId): string {
    return requestStreamId(this.sessionId!, this.streamPrefix ?? '', ++this.streamCount, requestId);
  }

  /** @internal Returns false when the session must not be announced (its initialize failed). */
  handshakeAnswered(failed: boolean): boolean {
    if (this.initialized) return true;
    if (failed) {
      // A failed handshake leaves no session behind.
      this.host.initializeFailed(this);
      return false;
    }
    this.initialized = true;
    return true;
  }

  /** @internal A request stream ended: answered (`finished`, kept resumable), cancelled or cut. */
  streamEnded(
    stream: { readonly requestId: unknown; readonly streamId: string | undefined },
    finished: boolean,
  ): void {
    const requests = this.requests;
    const id = stream.requestId as RequestId;
    if (requests?.get(id) === stream) {
      // An idle session keeps no Map (memory per idle session): the next request makes one.
      if (requests.size === 1) this.requests = undefined;
      else requests.delete(id);
    }
    const streamId = stream.streamId;
    let stored: Promise<unknown> | undefined;
    if (streamId !== undefined) {
      if (finished) stored = (this.retained ??= new RetainedStreams(this.host)).keep(streamId);
      else stored = forgetStream(this.host, streamId);
    }
    this.endWaiters?.ended(stream, stored);
    this.host.requestEnded?.(this);
    this.finishIfStateless();
  }

  /** @internal A resumed stream that completed: no longer kept. */
  release(streamId: string): void {
    if (this.retained) this.retained.release(streamId);
    else void forgetStream(this.host, streamId);
  }

  /** Stateless: the exchange is over once its request stream is. */
  private finishIfStateless(): void {
    if (this.sessionId === undefined && !this.closed && (this.requests?.size ?? 0) === 0) {
      void this.session?.close();
    }
  }
}
