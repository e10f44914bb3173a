/**
 * The per-session Streamable HTTP transport (legacy era). The handler feeds it POSTed messages
 * and hands it GET connections; the engine reads the inbox and `send`s, and `send` routes each
 * message to the one stream it belongs on.
 */
import { ConnectionClosedError, ErrorCode } from '../../../core/errors.js';
import { Inbox } from '../../../core/inbox.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../../core/jsonrpc.js';
import type { MessageInfo, SendOptions, Transport } from '../../../core/transport.js';
import type { ServerSession } from '../../../server/server-session.js';
import type { HttpExchange, HttpReply } from './exchange.js';
import type { RecencyEntry } from './recency-list.js';
import { RequestStream } from './request-stream.js';
import { sessionHeaders, sseReply, type SessionHeaders } from './responses.js';
import { resumeStream } from './resume.js';
import { SseWriter, type SseWriterOwner } from './sse-writer.js';
import { forgetStream, primeWriter, RESOLVED, storeThen, type StreamHost } from './stream-events.js';

/** The handler-wide services a session transport uses. */
export interface TransportHost extends StreamHost {
  /** The session had HTTP activity (LRU order, idle clock). */
  touched(transport: HttpServerTransport): void;
  /** The transport closed: forget its session. */
  transportClosed(transport: HttpServerTransport): void;
  /** The session's initialize request was answered with an error: end the session. */
  initializeFailed(transport: HttpServerTransport): void;
}

/**
 * Facts about an inbound message ride on the message object itself, under a private,
 * non-enumerable key: they live exactly as long as the message. (A WeakMap keyed by messages kept
 * every request's objects alive through young-generation GCs — an old table holding young keys —
 * and made GC a quarter of the server's CPU under load.)
 */
const INFO = Symbol('keel.http.messageInfo');

function tagMessage(message: object, info: MessageInfo): void {
  Object.defineProperty(message, INFO, { value: info, configurable: true });
}
/** Finished streams kept per session for resumption. */
const MAX_RETAINED_STREAMS = 16;
const NO_ROUTE = 'No open stream to send this request on (the client has no GET stream open)';

/**
 * One session's transport (or one stateless exchange's). Created by the handler; users meet it
 * only through `ctx.info`. Members marked internal are shared with the other server files.
 *
 * @example
 * const transport = new HttpServerTransport(host, crypto.randomUUID());
 * transport.session = server.connect(transport);
 */
export class HttpServerTransport implements Transport, SseWriterOwner, RecencyEntry<HttpServerTransport> {
  private readonly inbox = new Inbox<unknown>();
  /** Open request streams by request id; allocated on the first request. */
  private requests: Map<RequestId, RequestStream> | undefined;
  private streamCount = 0;
  private closed = false;
  private initialized = false;
  private replyHeaders: SessionHeaders | undefined;
  lastError: unknown;
  /** @internal The standalone GET stream's connection. */
  standalone: SseWriter | undefined;
  /** @internal The standalone stream has event ids: messages are stored while no GET is open. */
  standalonePrimed = false;
  /** @internal Finished streams that can still be resumed (oldest first, bounded). */
  retained: string[] | undefined;
  /** @internal Set by the handler right after `connect`. */
  session: ServerSession | undefined;
  /** @internal Open HTTP exchanges (pending POSTs and SSE connections); 0 = idle. */
  attached = 0;
  /** @internal Time of the last HTTP activity. */
  lastSeen = Date.now();
  /** @internal The one cleanup path has started. */
  ending = false;
  /** @internal Session table order (see RecencyList). */
  newer: HttpServerTransport | undefined;
  /** @internal Session table order (see RecencyList). */
  older: HttpServerTransport | undefined;

  constructor(
    /** @internal */ readonly host: TransportHost,
    readonly sessionId: string | undefined,
  ) {}

  /** @internal The response header sets of this session (built on first use). */
  get headers(): SessionHeaders {
    return (this.replyHeaders ??= sessionHeaders(this.sessionId));
  }

  get writable(): boolean {
    return !this.closed;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Streams get event ids (and can be resumed) only with a store, a session and ≥ 2025-11-25. */
  get resumable(): boolean {
    return (
      this.sessionId !== undefined &&
      this.host.store !== undefined &&
      (this.session?.protocolVersion ?? '') >= '2025-11-25'
    );
  }

  /** @internal The standalone GET stream's id. */
  get standaloneStreamId(): string {
    return `${this.sessionId}:0`;
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return this.inbox;
  }

  messageInfo(message: object): MessageInfo | undefined {
    return (message as { [INFO]?: MessageInfo })[INFO];
  }

  /** @internal A POSTed notification or response. */
  accept(message: object, info: MessageInfo): void {
    tagMessage(message, info);
    this.inbox.push(message);
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
    if (method === 'notifications/cancelled') this.cancelStream(params?.requestId);
  }

  /** @internal Stateless mode: the POST carried no request; end the connection once it is read. */
  endInput(): void {
    this.inbox.end();
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
      this.inbox.push(message);
    });
  }

  /** @internal A GET without `Last-Event-ID`: the standalone stream. Caller checks for a live one. */
  openStandalone(exchange: HttpExchange): HttpReply {
    const writer = this.newWriter(undefined, exchange);
    this.standalone = writer;
    if (this.resumable) {
      this.standalonePrimed = true;
      primeWriter(this.host, writer, this.standaloneStreamId);
    }
    return sseReply(writer, this.headers);
  }

  /** @internal A GET with `Last-Event-ID`. */
  resume(lastEventId: string, exchange: HttpExchange): Promise<HttpReply> {
    return resumeStream(this, lastEventId, exchange);
  }

  /** @internal The live request stream with this stream id. */
  streamById(streamId: string): RequestStream | undefined {
    if (this.requests)
      for (const stream of this.requests.values()) if (stream.streamId === streamId) return stream;
    return undefined;
  }

  /** @internal A writer for this session's `exchange`, counted as an open exchange. */
  newWriter(stream: RequestStream | undefined, exchange: HttpExchange): SseWriter {
    const writer = new SseWriter(this, this.host.keepAlive, stream);
    this.attached++;
    exchange.onClientGone(() => writer.gone());
    return writer;
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new ConnectionClosedError('HTTP session closed'));
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
    return this.toStandalone(message);
  }

  close(): Promise<void> {
    if (this.closed) return RESOLVED;
    this.closed = true;
    void this.inbox.return();
    const requests = this.requests;
    this.requests = undefined;
    if (requests) for (const stream of requests.values()) stream.abandon();
    this.standalone?.close();
    if (this.standalonePrimed) forgetStream(this.host, this.standaloneStreamId);
    if (this.retained) for (const streamId of this.retained.splice(0)) forgetStream(this.host, streamId);
    this.host.transportClosed(this);
    return RESOLVED;
  }

  writerEnded(writer: SseWriter, byClient: boolean): void {
    const stream = writer.stream;
    if (stream) {
      if (stream.writer === writer) stream.writer = undefined;
    } else if (this.standalone === writer) {
      this.standalone = undefined;
    }
    this.exchangeEnded(byClient);
  }

  /** @internal A pending POST or an SSE connection finished. */
  exchangeEnded(byClient: boolean): void {
    this.attached--;
    if (this.closed) return;
    this.host.touched(this);
    // Stateless: nobody can resume, so a client that left takes its request with it.
    if (byClient && this.sessionId === undefined) void this.session?.close();
    else this.finishIfStateless();
  }

  /** @internal Messages with no request stream: the standalone GET stream, stored or dropped. */
  toStandalone(message: JsonRpcMessage): Promise<void> {
    if (!this.standalonePrimed) {
      const writer = this.standalone;
      if (writer) {
        writer.event(undefined, JSON.stringify(message));
        return RESOLVED;
      }
      if ('method' in message && 'id' in message) return Promise.reject(new ConnectionClosedError(NO_ROUTE));
      this.host.logger.debug('dropped a message: no GET stream is open', message);
      return RESOLVED;
    }
    const data = JSON.stringify(message);
    return storeThen(this.host, this.standaloneStreamId, message, (id) => this.standalone?.event(id, data));
  }

  /** @internal A new stream id for a resumable request stream. */
  nextStreamId(): string {
    return `${this.sessionId}:${++this.streamCount}`;
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

  /** @internal Keep a finished stream resumable (the most recent few per session). */
  retain(streamId: string): void {
    const retained = (this.retained ??= []);
    retained.push(streamId);
    if (retained.length > MAX_RETAINED_STREAMS) forgetStream(this.host, retained.shift()!);
  }

  /** @internal The request stream ended (answered or cut). */
  removeStream(stream: RequestStream): void {
    stream.ended = true;
    if (this.requests?.get(stream.requestId) === stream) this.requests.delete(stream.requestId);
  }

  /** @internal Stateless: the exchange is over once its request stream is. */
  finishIfStateless(): void {
    if (this.sessionId === undefined && !this.closed && (this.requests?.size ?? 0) === 0) {
      void this.session?.close();
    }
  }

  /** A peer cancel ends the request's stream with one terminator (the engine writes nothing). */
  private cancelStream(requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const stream = this.requests?.get(requestId);
    if (!stream || stream.method === 'initialize') return;
    void stream.deliver(
      {
        jsonrpc: '2.0',
        id: requestId,
        error: { code: ErrorCode.RequestCancelled, message: 'Request cancelled' },
      },
      true,
    );
  }
}
