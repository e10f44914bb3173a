/**
 * Read one HTTP response body as Server-Sent Events. Parsing is eventsource-parser's job; this
 * file only feeds it decoded text and tracks what resumption needs (last event id, retry).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { HttpTransportError } from '../../../core/http-errors.js';

/** What survives across the connections of one logical SSE stream (the resumption cursor). */
export interface SseCursor {
  /** The last event id seen; sent as `Last-Event-ID` when reconnecting. */
  lastEventId: string | undefined;
  /** The server's last `retry:` value, in milliseconds. */
  retryMs: number | undefined;
}

/**
 * Feed `body` through the parser until it ends. Resolves with the number of events seen (priming
 * events included) when the server ends the body; rejects when the connection breaks, the reader
 * is aborted through the fetch signal, or one event grows beyond `maxBufferSize` characters.
 *
 * @example
 * const cursor = { lastEventId: undefined, retryMs: undefined };
 * await readSse(response.body!, cursor, (data) => inbox.push(JSON.parse(data)), 1 << 24);
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  cursor: SseCursor,
  onData: (data: string) => void,
  maxBufferSize: number,
): Promise<number> {
  let events = 0;
  let failure: Error | undefined;
  const parser = createParser({
    maxBufferSize,
    onEvent(event: EventSourceMessage) {
      events++;
      if (event.id !== undefined) cursor.lastEventId = event.id;
      // Priming events carry an id and empty data; other event types are not MCP messages.
      if (event.data.trim() === '' || (event.event !== undefined && event.event !== 'message')) return;
      onData(event.data);
    },
    onRetry(ms) {
      cursor.retryMs = ms;
    },
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') {
        failure = new HttpTransportError(`An SSE event exceeded ${maxBufferSize} characters`);
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw failure;
    }
  } finally {
    // Release the connection whatever happened; cancelling an ended or errored body is a no-op.
    await reader.cancel().catch(() => undefined);
  }
}
