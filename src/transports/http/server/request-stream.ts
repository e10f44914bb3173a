/**
 * The logical stream of one POSTed request: where everything the server sends for that request
 * goes, until its response. It outlives the HTTP connection that opened it (a dropped connection
 * is not a cancel; the client may resume with GET + `Last-Event-ID`).
 */
import type { RequestId } from '../../../core/jsonrpc.js';
import type { SseWriter } from './sse-writer.js';

/**
 * States: *pending* (`respond` set: nothing sent yet, the HTTP response is undecided) → *JSON*
 * (answered with one JSON body; ends at once) or *SSE* (`respond` consumed, events flow to
 * `writer` while a connection is attached, and to the event store when `streamId` is set).
 */
export class RequestStream {
  /** Resolves the POST's HTTP response; undefined once decided (or the client left undecided). */
  respond: ((response: Response) => void) | undefined;
  /** The attached connection (the POST's own, or a GET that resumed the stream). */
  writer: SseWriter | undefined;
  /** The POST's own SSE connection, so an abort of the POST never cuts a resumed GET. */
  postWriter: SseWriter | undefined;
  /** Set when the stream is resumable: its events are stored under this id. */
  streamId: string | undefined;
  /** The response was written (or the stream was ended). */
  ended = false;

  constructor(
    readonly requestId: RequestId,
    readonly method: string,
    respond: (response: Response) => void,
    /** The client accepts `application/json` for this POST. */
    readonly jsonAllowed: boolean,
    /** The client accepts `text/event-stream` for this POST. */
    readonly sseAllowed: boolean,
  ) {
    this.respond = respond;
  }
}
