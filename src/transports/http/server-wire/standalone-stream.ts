/**
 * The standalone GET stream of a session: where server messages that belong to no open request
 * stream go (stored for resumption while no GET is open, when the session is resumable).
 */
import { ConnectionClosedError } from '../../../core/errors.js';
import type { JsonRpcMessage } from '../../../core/jsonrpc.js';
import { sseReply } from './responses.js';
import type { SseWriter } from './sse-writer.js';
import { forgetStream, primeWriter, RESOLVED, storeThen } from './stream-events.js';
import type { HttpExchange, HttpReply, SessionHeaders, SseWriterOwner, StreamHost } from './types.js';

const NO_ROUTE = 'No open stream to send this request on (the client has no GET stream open)';

/** What the standalone stream needs from its session's transport. */
export interface StandaloneHost {
  readonly host: StreamHost;
  readonly sessionId: string | undefined;
  readonly resumable: boolean;
  readonly headers: SessionHeaders;
  newWriter(owner: SseWriterOwner, exchange: HttpExchange): SseWriter;
  exchangeEnded(byClient: boolean): void;
}

/**
 * @example
 * const standalone = new StandaloneStream(transport);
 * return standalone.open(exchange); // GET without Last-Event-ID
 */
export class StandaloneStream implements SseWriterOwner {
  /** The open GET connection, if any. */
  writer: SseWriter | undefined;
  /** The stream has event ids: messages are stored while no GET is open. */
  primed = false;
  /** Bumped when the store evicted the stream: later events start a new one. */
  private generation = 0;

  constructor(private readonly owner: StandaloneHost) {}

  /** The stream's id in the event store. */
  get streamId(): string {
    const base = `${this.owner.sessionId}:0`;
    return this.generation === 0 ? base : `${base}.${this.generation}`;
  }

  /** A GET without `Last-Event-ID`. The caller checks for a live one. */
  open(exchange: HttpExchange): HttpReply {
    const owner = this.owner;
    const writer = owner.newWriter(this, exchange);
    this.writer = writer;
    if (owner.resumable) {
      this.primed = true;
      primeWriter(owner.host, writer, this.streamId);
    }
    return sseReply(writer, owner.headers);
  }

  /** A GET that resumed this stream: the new connection replaces the old one. */
  adopt(writer: SseWriter): void {
    const previous = this.writer;
    this.writer = writer;
    this.primed = true;
    previous?.close();
  }

  /** Send a message here: written, stored, or (no GET, not resumable) dropped or refused. */
  send(message: JsonRpcMessage): Promise<void> {
    const host = this.owner.host;
    if (!this.primed) {
      const writer = this.writer;
      if (writer) {
        writer.event(undefined, JSON.stringify(message));
        return RESOLVED;
      }
      if ('method' in message && 'id' in message) return Promise.reject(new ConnectionClosedError(NO_ROUTE));
      host.logger.debug('dropped a message: no GET stream is open', message);
      return RESOLVED;
    }
    const data = JSON.stringify(message);
    const streamId = this.streamId;
    return storeThen(
      host,
      streamId,
      message,
      data,
      (id) => this.writer?.event(id, data),
      () => this.evicted(message, data),
    );
  }

  writerEnded(writer: unknown, byClient: boolean): void {
    if (this.writer === writer) this.writer = undefined;
    this.owner.exchangeEnded(byClient);
  }

  /** The session ended (`forget`: its stored events too; not when another process takes it on). */
  close(forget = true): void {
    this.writer?.close();
    if (this.primed && forget) void forgetStream(this.owner.host, this.streamId);
  }

  /**
   * The store dropped this stream: nothing before this message can be resumed (a stale
   * `Last-Event-ID` gets 400). The open GET, if any, goes on without event ids; the next GET starts
   * a fresh stream.
   */
  private evicted(message: JsonRpcMessage, data: string): void {
    this.owner.host.logger.error('event store evicted the standalone stream of a session');
    this.generation++;
    this.primed = false;
    if (this.writer) this.writer.event(undefined, data);
    else if ('method' in message && 'id' in message) throw new ConnectionClosedError(NO_ROUTE);
  }
}
