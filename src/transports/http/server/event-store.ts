/**
 * Resumability storage: SSE events by stream, so a client that lost a connection can resume with
 * GET + `Last-Event-ID` and get what it missed.
 */
import type { JsonRpcMessage } from '../../../core/jsonrpc.js';

/**
 * Storage of SSE events for resumption. One store serves every session of a handler; stream ids
 * are `<sessionId>:<n>`, so they never collide across sessions, and the handler only replays a
 * stream that belongs to the session asking.
 *
 * A store may be asynchronous (Redis, ...); results of `storeEvent` should settle in call order.
 *
 * @example
 * const handler = createHttpHandler(server, { eventStore: new InMemoryEventStore({ maxEventsPerStream: 500 }) });
 */
export interface EventStore {
  /**
   * Keep `message` (or, when `undefined`, a priming marker that is never replayed) as the next
   * event of `streamId`; return its event id. Ids must be unique across streams and let
   * {@link replayEventsAfter} find the stream again.
   */
  storeEvent(streamId: string, message: JsonRpcMessage | undefined): string | Promise<string>;
  /**
   * Call `send` in order for every stored message of the stream of `lastEventId` that came after
   * it, and return that stream's id; `undefined` when the id is unknown or expired.
   */
  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void,
  ): string | undefined | Promise<string | undefined>;
  /** Optional: the stream is finished and will not be resumed; its events may be dropped. */
  forgetStream?(streamId: string): void | Promise<void>;
}

/**
 * @example
 * new InMemoryEventStore({ maxEventsPerStream: 100, maxStreams: 10_000 });
 */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Default 100. */
  maxEventsPerStream?: number;
  /** Streams kept; the oldest stream is dropped first. Default 10,000. */
  maxStreams?: number;
}

/** One stream's retained events: `events[i]` has sequence number `first + i`. */
interface StreamLog {
  first: number;
  events: (JsonRpcMessage | undefined)[];
}

/**
 * The default {@link EventStore}: bounded, in process memory. Streams are forgotten when they
 * finish, so memory follows live streams, never total traffic. A resumption from an event older
 * than the retained window replays what is retained.
 *
 * @example
 * const store = new InMemoryEventStore();
 * const id = store.storeEvent('s1:1', { jsonrpc: '2.0', method: 'notifications/progress' });
 * store.replayEventsAfter(id, (eventId, message) => console.log(eventId, message)); // 's1:1'
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StreamLog>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 100);
    this.maxStreams = Math.max(1, options.maxStreams ?? 10_000);
  }

  /** Number of streams held (for tests and metrics). */
  get streamCount(): number {
    return this.streams.size;
  }

  storeEvent(streamId: string, message: JsonRpcMessage | undefined): string {
    let log = this.streams.get(streamId);
    if (!log) {
      if (this.streams.size >= this.maxStreams) {
        const oldest = this.streams.keys().next().value;
        if (oldest !== undefined) this.streams.delete(oldest);
      }
      log = { first: 0, events: [] };
      this.streams.set(streamId, log);
    }
    const seq = log.first + log.events.length;
    log.events.push(message);
    if (log.events.length > this.maxEvents) {
      log.events.shift();
      log.first++;
    }
    return `${streamId}_${seq}`;
  }

  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void,
  ): string | undefined {
    const cut = lastEventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const seqText = lastEventId.slice(cut + 1);
    const seq = Number(seqText);
    if (!/^\d+$/.test(seqText) || !Number.isSafeInteger(seq)) return undefined;
    const log = this.streams.get(streamId);
    if (!log || seq >= log.first + log.events.length) return undefined;
    for (let s = Math.max(seq + 1, log.first); s < log.first + log.events.length; s++) {
      const message = log.events[s - log.first];
      if (message !== undefined) send(`${streamId}_${s}`, message);
    }
    return streamId;
  }

  forgetStream(streamId: string): void {
    this.streams.delete(streamId);
  }
}
