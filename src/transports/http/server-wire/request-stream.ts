/**
 * The logical stream of one POSTed request: where everything the server sends for that request
 * goes, until its response. It outlives the HTTP connection that opened it (a dropped connection
 * is not a cancel; the client may resume with GET + `Last-Event-ID`).
 */
import { ErrorCode } from '../../../core/errors.js';
import type { JsonRpcMessage, RequestId } from '../../../core/jsonrpc.js';
import { stringifyMessage } from '../../../core/stringify-message.js';
import { StreamEvictedError } from './event-store.js';
import { emptyReply, endedSseReply, errorAnswer, jsonReply, sessionHeaders, sseReply } from './responses.js';
import { SseWriter } from './sse-writer.js';
import { primeWriter, RESOLVED, storeThen } from './stream-events.js';
import type { HttpReply, SseWriterOwner, StreamOwner } from './types.js';

/** Headers of an answer that must not announce the session (its initialize failed). */
const ANONYMOUS = sessionHeaders(undefined);

/**
 * States: *pending* (`respond` set: nothing sent yet, the HTTP response is undecided) → *JSON*
 * (answered with one JSON body; ends at once) or *SSE* (`respond` consumed, events flow to
 * `writer` while a connection is attached, and to the event store when `streamId` is set).
 *
 * @example
 * const stream = new RequestStream(transport, 1, 'tools/call', resolve, true, true);
 * await stream.deliver({ jsonrpc: '2.0', id: 1, result: {} }, true); // answers JSON
 */
export class RequestStream implements SseWriterOwner {
  /** Resolves the POST's HTTP reply; undefined once decided (or the client left undecided). */
  respond: ((reply: HttpReply) => void) | undefined;
  /** The attached connection (the POST's own, or a GET that resumed the stream). */
  writer: SseWriter | undefined;
  /** The POST's own SSE connection, so an abort of the POST never cuts a resumed GET. */
  postWriter: SseWriter | undefined;
  /** Set when the stream is resumable: its events are stored under this id. */
  streamId: string | undefined;
  /** The response was written (or the stream was ended). */
  ended = false;
  /**
   * The last event still being stored (an asynchronous store, such as Redis): a cancel ends the
   * stream only after it, so the nested cancels the abort just wrote are not dropped.
   */
  private storing: Promise<void> | undefined;

  constructor(
    readonly transport: StreamOwner,
    readonly requestId: RequestId,
    readonly method: string,
    respond: (reply: HttpReply) => void,
    /** The client accepts `application/json` for this POST. */
    readonly jsonAllowed: boolean,
    /** The client accepts `text/event-stream` for this POST. */
    readonly sseAllowed: boolean,
  ) {
    this.respond = respond;
  }

  /** Send one message of this request: its response (`isResponse`) or a related message. */
  deliver(message: JsonRpcMessage, isResponse: boolean): Promise<void> {
    if (this.respond) {
      if (isResponse && this.jsonAllowed) {
        this.answerJson(message);
        return RESOLVED;
      }
      // A client that takes JSON only gets related messages on the standalone stream.
      if (!this.sseAllowed) return this.transport.toStandalone(message);
      this.upgrade();
    } else if (this.writer === undefined && this.streamId === undefined) {
      // The client left before the stream could be resumed: related messages take the standalone
      // stream (a nested request's cancel must still reach a client that reads one).
      if (!isResponse) return this.transport.toStandalone(message);
      this.transport.host.logger.debug('dropped a response: the client left its request stream', message);
      this.end(false);
      return RESOLVED;
    }
    const data = stringifyMessage(message);
    if (this.streamId === undefined) {
      this.emit(undefined, data, message);
      return RESOLVED;
    }
    const stored = storeThen(
      this.transport.host,
      this.streamId,
      message,
      data,
      (id) => this.emit(id, data, message),
      () => this.evicted(),
    );
    if (stored !== RESOLVED) this.storing = stored;
    return stored;
  }

  /** Pending → SSE: answer the POST with an event stream (primed when resumable). */
  upgrade(): void {
    const respond = this.respond!;
    this.respond = undefined;
    const transport = this.transport;
    // The pending exchange becomes this connection: the open-exchange count is unchanged.
    const writer = new SseWriter(this, transport.host);
    this.writer = this.postWriter = writer;
    if (transport.resumable) {
      this.streamId = transport.nextStreamId(this.requestId);
      primeWriter(transport.host, writer, this.streamId);
    }
    respond(sseReply(writer, transport.headers));
  }

  /** The POST's connection went away. Not a cancel: the handler keeps running. */
  clientLeft(): void {
    const respond = this.respond;
    if (!respond) {
      this.postWriter?.gone();
      return;
    }
    this.respond = undefined;
    // Nobody reads it; settling it lets the request's async frames finish.
    respond(endedSseReply(this.transport.headers));
    this.transport.exchangeEnded(true);
  }

  /** `ctx.info.closeSSEStream()`: end the connection, keep the stream (the client resumes). */
  closeConnection(): void {
    if (this.ended || this.transport.isClosed) return;
    if (this.respond) {
      if (!this.sseAllowed) return;
      this.upgrade();
    }
    this.writer?.close();
  }

  /**
   * The peer cancelled the request and the engine has written what the cancel caused (nested
   * requests' cancels, on this stream): end the stream with no response. A POST still undecided
   * gets an empty answer (an event stream that ends at once, or 202 for a JSON-only client).
   */
  cancelled(): void {
    if (this.ended) return;
    const storing = this.storing;
    if (storing) {
      // Stores settle in order: once the last one has, everything written before the cancel is out.
      this.storing = undefined;
      const again = (): void => this.cancelled();
      void storing.then(again, again);
      return;
    }
    const respond = this.respond;
    if (respond) {
      this.respond = undefined;
      this.transport.streamEnded(this, false);
      this.ended = true;
      respond(
        this.sseAllowed ? endedSseReply(this.transport.headers) : emptyReply(202, this.transport.headers),
      );
      this.transport.exchangeEnded(false);
      return;
    }
    this.end(false);
  }

  /** The session closed: end the stream without an answer. */
  abandon(): void {
    this.ended = true;
    const respond = this.respond;
    if (respond) {
      this.respond = undefined;
      this.transport.exchangeEnded(false);
      respond(endedSseReply(this.transport.headers));
    }
    this.writer?.close();
    this.postWriter?.close();
  }

  writerEnded(writer: unknown, byClient: boolean): void {
    if (this.writer === writer) this.writer = undefined;
    if (this.postWriter === writer) this.postWriter = undefined;
    this.transport.exchangeEnded(byClient);
  }

  /**
   * The event store dropped this stream while it was live (it needed the room): nobody can resume
   * it now, so a reading client gets one clear error for the request and the stream ends; a client
   * that resumes later gets 400 for its `Last-Event-ID`.
   */
  private evicted(): void {
    if (this.ended) return;
    const error = {
      jsonrpc: '2.0' as const,
      id: this.requestId,
      error: {
        code: ErrorCode.ConnectionClosed,
        message: 'Stream evicted from the event store: the result of this request cannot be delivered',
      },
    };
    this.transport.host.logger.error(
      `event store evicted the live stream of request ${String(this.requestId)}`,
    );
    this.writer?.event(undefined, JSON.stringify(error));
    this.end(false);
    // That error was this request's answer: its handler's work can no longer reach anyone.
    this.transport.oninboundlost?.(this.requestId, new StreamEvictedError(this.streamId ?? ''));
  }

  private emit(eventId: string | undefined, data: string, message: JsonRpcMessage): void {
    if (this.ended) return;
    this.writer?.event(eventId, data);
    if ('method' in message) return;
    if (this.method === 'initialize') this.transport.handshakeAnswered('error' in message);
    this.end(true);
  }

  private answerJson(message: JsonRpcMessage): void {
    const respond = this.respond!;
    this.respond = undefined;
    const transport = this.transport;
    const announce = this.method !== 'initialize' || transport.handshakeAnswered('error' in message);
    this.ended = true;
    transport.streamEnded(this, false);
    const reply = jsonReply(stringifyMessage(message), announce ? transport.headers : ANONYMOUS);
    // An error answer has its HTTP status (errorAnswer: 2026-07-28 maps every code, legacy only a
    // quota refusal's 429), so a dual-era client and gateways can tell it apart without the body.
    respond('error' in message ? errorAnswer(reply, message.error, transport.modern) : reply);
    transport.exchangeEnded(false);
  }

  /** `finished`: the response is in the stream (kept for resumption); else it ends unanswered. */
  private end(finished: boolean): void {
    this.ended = true;
    const writer = this.writer;
    this.writer = undefined;
    // Kept even when "delivered": an enqueued event is not a received one (a dropped TCP
    // connection is noticed late), and the client may still resume.
    this.transport.streamEnded(this, finished);
    writer?.close();
  }
}
