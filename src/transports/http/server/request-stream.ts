/**
 * The logical stream of one POSTed request: where everything the server sends for that request
 * goes, until its response. It outlives the HTTP connection that opened it (a dropped connection
 * is not a cancel; the client may resume with GET + `Last-Event-ID`).
 */
import { ConnectionClosedError } from '../../../core/errors.js';
import type { JsonRpcMessage, RequestId } from '../../../core/jsonrpc.js';
import type { HttpReply } from './exchange.js';
import { endedSseReply, jsonReply, sessionHeaders, sseReply } from './responses.js';
import type { HttpServerTransport } from './session-transport.js';
import { SseWriter } from './sse-writer.js';
import { forgetStream, primeWriter, RESOLVED, storeThen } from './stream-events.js';

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
export class RequestStream {
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

  constructor(
    readonly transport: HttpServerTransport,
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
      // The client left before the stream could be resumed: nobody can receive this.
      if (isResponse) this.end();
      else if ('id' in message)
        return Promise.reject(new ConnectionClosedError('The client left this request'));
      this.transport.host.logger.debug('dropped a message: the client left its request stream', message);
      return RESOLVED;
    }
    const data = JSON.stringify(message);
    if (this.streamId === undefined) {
      this.emit(undefined, data, message);
      return RESOLVED;
    }
    return storeThen(this.transport.host, this.streamId, message, (id) => this.emit(id, data, message));
  }

  /** Pending → SSE: answer the POST with an event stream (primed when resumable). */
  upgrade(): void {
    const respond = this.respond!;
    this.respond = undefined;
    const transport = this.transport;
    // The pending exchange becomes this connection: the open-exchange count is unchanged.
    const writer = new SseWriter(transport, transport.host.keepAlive, this);
    this.writer = this.postWriter = writer;
    if (transport.resumable) {
      this.streamId = transport.nextStreamId();
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

  /** The session closed: end the stream without an answer. */
  abandon(): void {
    this.ended = true;
    const respond = this.respond;
    if (respond) {
      this.respond = undefined;
      this.transport.attached--;
      respond(endedSseReply(this.transport.headers));
    }
    this.writer?.close();
    this.postWriter?.close();
    if (this.streamId !== undefined) forgetStream(this.transport.host, this.streamId);
  }

  private emit(eventId: string | undefined, data: string, message: JsonRpcMessage): void {
    this.writer?.event(eventId, data);
    if ('method' in message) return;
    if (this.method === 'initialize') this.transport.handshakeAnswered('error' in message);
    this.end();
  }

  private answerJson(message: JsonRpcMessage): void {
    const respond = this.respond!;
    this.respond = undefined;
    const transport = this.transport;
    const announce = this.method !== 'initialize' || transport.handshakeAnswered('error' in message);
    transport.removeStream(this);
    respond(jsonReply(JSON.stringify(message), announce ? transport.headers : ANONYMOUS));
    transport.exchangeEnded(false);
  }

  private end(): void {
    const transport = this.transport;
    transport.removeStream(this);
    const writer = this.writer;
    this.writer = undefined;
    writer?.close();
    // Kept even when "delivered": an enqueued event is not a received one (a dropped TCP
    // connection is noticed late), and the client may still resume.
    if (this.streamId !== undefined) transport.retain(this.streamId);
    transport.finishIfStateless();
  }
}
