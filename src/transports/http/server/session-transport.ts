/**
 * The per-session Streamable HTTP transport (legacy era). The handler feeds it POSTed messages
 * and hands it GET connections; the engine reads the inbox and `send`s, and `send` routes each
 * message to the one stream it belongs on.
 */
import type { Logger } from '../../../core/engine/connection.js';
import { ConnectionClosedError, ErrorCode } from '../../../core/errors.js';
import { Inbox } from '../../../core/inbox.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../../core/jsonrpc.js';
import type { MessageInfo, SendOptions, Transport } from '../../../core/transport.js';
import type { ServerSession } from '../../../server/server-session.js';
import type { EventStore } from './event-store.js';
import { RequestStream } from './request-stream.js';
import { endedSseResponse, jsonResponse, sseResponse } from './responses.js';
import { SseWriter, type KeepAlive, type SseWriterOwner } from './sse-writer.js';
import { resumeStream } from './resume.js';

/** What every session transport of one handler shares (one object, not one copy per session). */
export interface TransportHost {
  readonly store: EventStore | undefined;
  readonly retryMs: number;
  readonly keepAlive: KeepAlive | undefined;
  readonly logger: Logger;
  /** The session had HTTP activity (LRU order, idle clock). */
  touched(transport: HttpServerTransport): void;
  /** The transport closed: forget its session. */
  transportClosed(transport: HttpServerTransport): void;
  /** The session's initialize request was answered with an error: end the session. */
  initializeFailed(transport: HttpServerTransport): void;
}

/** Facts about inbound messages, keyed by message object: one table, no per-session allocation. */
const infoByMessage = new WeakMap<object, MessageInfo>();
const RESOLVED = Promise.resolve();
/** Finished streams kept per session for resumption. */
const MAX_RETAINED_STREAMS = 16;
const NO_ROUTE = 'No open stream to send this request on (the client has no GET stream open)';

/**
 * One session's transport. Created by the handler; users meet it only as `ctx.info` facts.
 *
 * @example
 * const transport = new HttpServerTransport(host, crypto.randomUUID());
 * const session = server.connect(transport);
 */
export class HttpServerTransport implements Transport, SseWriterOwner {
  private readonly inbox = new Inbox<unknown>();
  /** Open request streams by request id; allocated on the first request. */
  private requests: Map<RequestId, RequestStream> | undefined;
  /** @internal The standalone GET stream's connection. */
  standalone: SseWriter | undefined;
  /** @internal The standalone stream has event ids: messages are stored while no GET is open. */
  standalonePrimed = false;
  /** @internal Finished streams that can still be resumed (oldest first, bounded). */
  retained: string[] | undefined;
  private streamCount = 0;
  private closed = false;
  private initialized = false;
  lastError: unknown;
  /** @internal Set by the handler right after `connect`. */
  session: ServerSession | undefined;
  /** @internal Open HTTP exchanges (pending POSTs and SSE connections); 0 = idle. */
  attached = 0;
  /** @internal Time of the last HTTP activity. */
  lastSeen = Date.now();
  /** @internal The one cleanup path has started. */
  ending = false;

  constructor(
    /** @internal */ readonly host: TransportHost,
    readonly sessionId: string | undefined,
  ) {}

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
    return infoByMessage.get(message);
  }

  /** @internal A POSTed notification or response. */
  accept(message: object, info: MessageInfo): void {
    infoByMessage.set(message, info);
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
   * @internal A POSTed request. Resolves with the HTTP response once it is decided: JSON when the
   * result comes first, SSE from the first related message (or at once in `sse` mode).
   */
  request(
    message: JsonRpcRequest,
    info: MessageInfo,
    accepts: { json: boolean; sse: boolean; eager: boolean },
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    return new Promise<Response>((resolve) => {
      const stream = new RequestStream(message.id, message.method, resolve, accepts.json, accepts.sse);
      (this.requests ??= new Map()).set(message.id, stream);
      this.attached++;
      if (this.resumable && accepts.sse) info.closeSSEStream = () => this.closeConnection(stream);
      infoByMessage.set(message, info);
      if ((accepts.eager || !accepts.json) && accepts.sse) this.upgrade(stream);
      if (signal) {
        if (signal.aborted) this.clientLeft(stream);
        else signal.addEventListener('abort', () => this.clientLeft(stream), { once: true });
      }
      this.inbox.push(message);
    });
  }

  /** @internal A GET without `Last-Event-ID`: the standalone stream. Caller checks for a live one. */
  openStandalone(signal: AbortSignal | undefined): Response {
    const writer = this.newWriter(undefined, signal);
    this.standalone = writer;
    if (this.resumable) {
      this.standalonePrimed = true;
      this.prime(writer, this.standaloneStreamId);
    }
    return sseResponse(writer.body, this.sessionId);
  }

  /** @internal A GET with `Last-Event-ID`. */
  resume(lastEventId: string, signal: AbortSignal | undefined): Promise<Response> {
    return resumeStream(this, lastEventId, signal);
  }

  /** @internal Find the live request stream with this stream id. */
  streamById(streamId: string): RequestStream | undefined {
    if (this.requests)
      for (const stream of this.requests.values()) if (stream.streamId === streamId) return stream;
    return undefined;
  }

  /** @internal A writer for this session, counted as an open exchange. */
  newWriter(stream: RequestStream | undefined, signal: AbortSignal | undefined): SseWriter {
    const writer = new SseWriter(this, this.host.keepAlive, stream);
    this.attached++;
    if (signal) signal.addEventListener('abort', () => writer.gone(), { once: true });
    return writer;
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new ConnectionClosedError('HTTP session closed'));
    const isResponse = !('method' in message);
    const target = isResponse ? (message as { id: RequestId | null }).id : options?.relatedRequestId;
    if (target !== undefined && target !== null) {
      const stream = this.requests?.get(target);
      if (stream) return this.toRequestStream(stream, message, isResponse);
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
    if (requests) {
      for (const stream of requests.values()) {
        stream.ended = true;
        const respond = stream.respond;
        if (respond) {
          stream.respond = undefined;
          this.attached--;
          respond(endedSseResponse(this.sessionId));
        }
        stream.writer?.close();
        stream.postWriter?.close();
        if (stream.streamId !== undefined) this.forget(stream.streamId);
      }
    }
    this.standalone?.close();
    if (this.standalonePrimed) this.forget(this.standaloneStreamId);
    if (this.retained) for (const streamId of this.retained.splice(0)) this.forget(streamId);
    this.host.transportClosed(this);
    return RESOLVED;
  }

  writerEnded(writer: SseWriter, byClient: boolean): void {
    this.attached--;
    const stream = writer.stream;
    if (stream) {
      if (stream.writer === writer) stream.writer = undefined;
    } else if (this.standalone === writer) {
      this.standalone = undefined;
    }
    if (this.closed) return;
    this.host.touched(this);
    // Stateless: nobody can resume, so a client that left takes its request with it.
    if (byClient && this.sessionId === undefined) void this.session?.close();
  }

  /** @internal Store the priming event (id, empty data, retry) and write it. */
  prime(writer: SseWriter, streamId: string): void {
    const id = this.host.store!.storeEvent(streamId, undefined);
    if (typeof id === 'string') {
      writer.prime(id, this.host.retryMs);
      return;
    }
    writer.hold();
    id.then(
      (eventId) => {
        writer.prime(eventId, this.host.retryMs);
        writer.release(EMPTY);
      },
      (error: unknown) => {
        this.host.logger.error('event store failed to store a priming event', error);
        writer.release(EMPTY);
      },
    );
  }

  /** @internal Tell the store a stream is finished. */
  forget(streamId: string): void {
    try {
      const done = this.host.store?.forgetStream?.(streamId);
      if (done instanceof Promise)
        done.catch((error: unknown) => this.host.logger.debug('forgetStream failed', error));
    } catch (error) {
      this.host.logger.debug('forgetStream failed', error);
    }
  }

  private toRequestStream(
    stream: RequestStream,
    message: JsonRpcMessage,
    isResponse: boolean,
  ): Promise<void> {
    if (stream.respond) {
      if (isResponse && stream.jsonAllowed) {
        this.answerJson(stream, message);
        return RESOLVED;
      }
      // A client that takes JSON only gets related messages on the standalone stream.
      if (!stream.sseAllowed) {
        if (isResponse) this.answerJson(stream, message);
        return isResponse ? RESOLVED : this.toStandalone(message);
      }
      this.upgrade(stream);
    } else if (stream.writer === undefined && stream.streamId === undefined) {
      // The client left before the stream could be resumed: nobody can receive this.
      if (isResponse) this.endRequestStream(stream);
      if ('id' in message && !isResponse)
        return Promise.reject(new ConnectionClosedError('The client left this request'));
      this.host.logger.debug('dropped a message: the client left its request stream', message);
      return RESOLVED;
    }
    const data = JSON.stringify(message);
    const streamId = stream.streamId;
    if (streamId === undefined) {
      this.emit(stream, undefined, data, message);
      return RESOLVED;
    }
    const id = this.host.store!.storeEvent(streamId, message);
    if (typeof id === 'string') {
      this.emit(stream, id, data, message);
      return RESOLVED;
    }
    return id.then(
      (eventId) => this.emit(stream, eventId, data, message),
      (error: unknown) => {
        this.host.logger.error('event store failed to store an event', error);
        this.emit(stream, undefined, data, message);
      },
    );
  }

  private emit(
    stream: RequestStream,
    eventId: string | undefined,
    data: string,
    message: JsonRpcMessage,
  ): void {
    const writer = stream.writer;
    writer?.event(eventId, data);
    if ('method' in message) return;
    if (stream.method === 'initialize') this.handshakeAnswered('error' in message);
    this.endRequestStream(stream);
  }

  /** Returns false when the session must not be announced (its initialize failed). */
  private handshakeAnswered(failed: boolean): boolean {
    if (this.initialized) return true;
    if (failed) {
      // A failed handshake leaves no session behind.
      this.host.initializeFailed(this);
      return false;
    }
    this.initialized = true;
    return true;
  }

  private toStandalone(message: JsonRpcMessage): Promise<void> {
    const writer = this.standalone;
    if (!writer && !this.standalonePrimed) {
      if ('method' in message && 'id' in message) return Promise.reject(new Error(NO_ROUTE));
      this.host.logger.debug('dropped a message: no GET stream is open', message);
      return RESOLVED;
    }
    const data = JSON.stringify(message);
    if (!this.standalonePrimed) {
      writer?.event(undefined, data);
      return RESOLVED;
    }
    const id = this.host.store!.storeEvent(this.standaloneStreamId, message);
    if (typeof id === 'string') {
      this.standalone?.event(id, data);
      return RESOLVED;
    }
    return id.then(
      (eventId) => this.standalone?.event(eventId, data),
      (error: unknown) => this.host.logger.error('event store failed to store an event', error),
    );
  }

  /** Pending → SSE: answer the POST with an event stream (primed when resumable). */
  private upgrade(stream: RequestStream): void {
    const respond = stream.respond!;
    stream.respond = undefined;
    const writer = new SseWriter(this, this.host.keepAlive, stream);
    // The pending exchange becomes this connection: `attached` is unchanged.
    stream.writer = writer;
    stream.postWriter = writer;
    if (this.resumable) {
      stream.streamId = `${this.sessionId}:${++this.streamCount}`;
      this.prime(writer, stream.streamId);
    }
    respond(sseResponse(writer.body, this.sessionId));
  }

  private answerJson(stream: RequestStream, message: JsonRpcMessage): void {
    const respond = stream.respond!;
    stream.respond = undefined;
    this.attached--;
    const announce = stream.method !== 'initialize' || this.handshakeAnswered('error' in message);
    this.removeStream(stream);
    respond(jsonResponse(JSON.stringify(message), announce ? this.sessionId : undefined));
    if (!this.closed) this.host.touched(this);
    this.finishIfStateless();
  }

  private endRequestStream(stream: RequestStream): void {
    this.removeStream(stream);
    const writer = stream.writer;
    stream.writer = undefined;
    writer?.close();
    // Kept even when "delivered": an enqueued event is not a received one (a dropped TCP
    // connection is noticed late), and the client may still resume.
    if (stream.streamId !== undefined) this.retain(stream.streamId);
    this.finishIfStateless();
  }

  /** Keep a finished stream for a resumption (the most recent few per session). */
  private retain(streamId: string): void {
    const retained = (this.retained ??= []);
    retained.push(streamId);
    if (retained.length > MAX_RETAINED_STREAMS) this.forget(retained.shift()!);
  }

  private removeStream(stream: RequestStream): void {
    stream.ended = true;
    if (this.requests?.get(stream.requestId) === stream) this.requests.delete(stream.requestId);
  }

  /** The POST's connection went away. Not a cancel: the handler keeps running. */
  private clientLeft(stream: RequestStream): void {
    const respond = stream.respond;
    if (respond) {
      stream.respond = undefined;
      this.attached--;
      // Nobody reads it; settling it lets the request's async frames finish.
      respond(endedSseResponse(this.sessionId));
      if (this.closed) return;
      this.host.touched(this);
      if (this.sessionId === undefined) void this.session?.close();
    } else {
      stream.postWriter?.gone();
    }
  }

  /** `ctx.info.closeSSEStream()`: end the connection, keep the stream (the client resumes). */
  private closeConnection(stream: RequestStream): void {
    if (stream.ended || this.closed) return;
    if (stream.respond) {
      if (!stream.sseAllowed) return;
      this.upgrade(stream);
    }
    stream.writer?.close();
  }

  /** A peer cancel ends the request's stream with one terminator (the engine writes nothing). */
  private cancelStream(requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const stream = this.requests?.get(requestId);
    if (!stream || stream.method === 'initialize') return;
    const terminator: JsonRpcMessage = {
      jsonrpc: '2.0',
      id: requestId,
      error: { code: ErrorCode.RequestCancelled, message: 'Request cancelled' },
    };
    void this.toRequestStream(stream, terminator, true);
  }

  private finishIfStateless(): void {
    if (this.sessionId === undefined && !this.closed && (this.requests?.size ?? 0) === 0) {
      void this.session?.close();
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();
