/**
 * GET + `Last-Event-ID`: replay what a stream missed, then continue that stream on the new
 * connection (or end it at once when its response was already stored).
 */
import type { EventStore } from '../../transports/http/server-wire/event-store.js';
import { badRequest, SESSION_NOT_FOUND, sseReply } from '../../transports/http/server-wire/responses.js';
import type { HttpServerTransport } from './session-transport.js';
import type { SseWriter } from '../../transports/http/server-wire/sse-writer.js';
import type { HttpExchange, HttpReply } from '../../transports/http/server-wire/types.js';

/**
 * Resume the stream `lastEventId` belongs to. Only a stream of this session is ever replayed.
 *
 * @example
 * return resumeStream(transport, exchange.header('last-event-id')!, exchange);
 */
export async function resumeStream(
  transport: HttpServerTransport,
  lastEventId: string,
  exchange: HttpExchange,
): Promise<HttpReply> {
  const store = transport.host.store!;
  const replayed: [string, string][] = [];
  let streamId: string | undefined;
  let isAsync = false;
  try {
    const result = store.replayEventsAfter(lastEventId, (id, message) => {
      replayed.push([id, JSON.stringify(message)]);
    });
    isAsync = result instanceof Promise;
    streamId = isAsync ? await result : (result as string | undefined);
  } catch (error) {
    transport.host.logger.error('event store failed to replay events', error);
  }
  if (transport.isClosed) return SESSION_NOT_FOUND;
  const sessionId = transport.sessionId!;
  if (streamId === undefined || !streamId.startsWith(`${sessionId}:`)) {
    return badRequest('Unknown or expired Last-Event-ID');
  }

  const standalone = streamId === transport.standalone.streamId;
  const stream = standalone ? undefined : transport.streamById(streamId);
  const writer = transport.newWriter(stream ?? transport.standalone, exchange);
  const written = isAsync ? new Set<string>() : undefined;
  for (const [id, text] of replayed) {
    writer.replayed(id, text);
    written?.add(id);
  }

  if (!standalone && !stream) {
    // The stream's response is among the replayed events: the stream is complete.
    writer.close();
    transport.release(streamId);
    return sseReply(writer, transport.headers);
  }

  if (stream) {
    const previous = stream.writer;
    stream.writer = writer;
    previous?.close();
  } else {
    transport.standalone.adopt(writer);
  }
  if (written) {
    // An asynchronous store may have taken events between its replay and this attach.
    writer.hold();
    void catchUp(store, writer, replayed.at(-1)?.[0] ?? lastEventId, written);
  }
  return sseReply(writer, transport.headers);
}

async function catchUp(
  store: EventStore,
  writer: SseWriter,
  after: string,
  written: Set<string>,
): Promise<void> {
  try {
    await store.replayEventsAfter(after, (id, message) => {
      if (written.has(id)) return;
      written.add(id);
      writer.replayed(id, JSON.stringify(message));
    });
  } catch {
    // The live events still flow; only the gap is lost, as with any failed store.
  }
  writer.release(written);
}
