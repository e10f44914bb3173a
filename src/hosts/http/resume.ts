/**
 * GET + `Last-Event-ID`: replay what a stream missed, then continue that stream on the new
 * connection (or end it at once when its response was already stored).
 */
import type { EventStore } from '../../transports/http/server-wire/event-store.js';
import { badRequest, SESSION_NOT_FOUND, sseReply } from '../../transports/http/server-wire/responses.js';
import type { HttpServerTransport } from './session-transport.js';
import type { SseWriter } from '../../transports/http/server-wire/sse-writer.js';
import type { HttpExchange, HttpReply } from '../../transports/http/server-wire/types.js';
import { ErrorCode } from '../../core/errors.js';
import type { JsonRpcMessage, RequestId } from '../../core/jsonrpc.js';
import { requestIdOfStream } from '../../transports/http/server-wire/stream-ids.js';
import { OWNER_STOPPED } from './cluster/tunnel-replies.js';

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
    // Complete: its response is among the replayed events. Or (issue 28) a stream of the process
    // that held this session before it was adopted here, which died with its request unanswered:
    // the stored events, then one clear error for that request, so the client's call settles.
    const died = diedWithPreviousOwner(transport, streamId, replayed);
    if (died !== undefined) await answerDied(transport, streamId, died, writer);
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

/**
 * The request a resumed stream was for, when that request died with the process that held the
 * session before this one adopted it: the stream is another process's (its id does not carry
 * this transport's prefix) and the replay holds no response for it. Undefined otherwise.
 */
function diedWithPreviousOwner(
  transport: HttpServerTransport,
  streamId: string,
  replayed: readonly [string, string][],
): RequestId | undefined {
  const prefix = transport.streamPrefix;
  if (prefix === undefined) return undefined; // never adopted: every stream is this process's
  if (streamId.startsWith(`${transport.sessionId!}:${prefix}`)) return undefined;
  const requestId = requestIdOfStream(streamId);
  if (requestId === undefined) return undefined;
  const answered = replayed.some(([, text]) => {
    const message = JSON.parse(text) as { id?: unknown; method?: unknown };
    return message.id === requestId && message.method === undefined;
  });
  return answered ? undefined : requestId;
}

/** Store and write the one error that settles a request that died with its process. */
async function answerDied(
  transport: HttpServerTransport,
  streamId: string,
  requestId: RequestId,
  writer: SseWriter,
): Promise<void> {
  const message: JsonRpcMessage = {
    jsonrpc: '2.0',
    id: requestId,
    error: { code: ErrorCode.ConnectionClosed, message: OWNER_STOPPED },
  };
  const data = JSON.stringify(message);
  let id: string | undefined;
  try {
    // Stored, so a second resumption replays this same answer instead of making another.
    id = await transport.host.store!.storeEvent(streamId, message, data);
    await transport.host.store!.finishStream?.(streamId);
  } catch (error) {
    transport.host.logger.error('event store failed to keep the answer of a request that died', error);
  }
  if (id === undefined) writer.event(undefined, data);
  else writer.replayed(id, data);
}
