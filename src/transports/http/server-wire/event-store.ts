/**
 * Resumability storage: SSE events by stream, so a client that lost a connection can resume with
 * GET + `Last-Event-ID` and get what it missed.
 */
import { LocalError } from '../../../core/errors.js';
import type { JsonRpcMessage } from '../../../core/jsonrpc.js';

/**
 * Storage of SSE events for resumption. One store serves every session of a handler; stream ids
 * are `<sessionId>:<n>`, so they never collide across sessions, and the handler only replays a
 * stream that belongs to the session asking.
 *
 * A store may be asynchronous (Redis, ...); results of `storeEvent` should settle in call order.
 *
 * @example
 * const handler = createHttpHandler(server, { eventStore: new InMemoryEventStore({ maxBytes: 16 << 20 }) });
 */
export interface EventStore {
  /**
   * Keep `message` (or, when `undefined`, a priming marker that is never replayed) as the next
   * event of `streamId`; return its event id. Ids must be unique across streams and let
   * {@link replayEventsAfter} find the stream again. `data` is the message's JSON text when the
   * caller has it. Throw (or reject with) {@link StreamEvictedError} when the store dropped this
   * live stream to make room: the server then ends the stream with a clear error.
   */
  storeEvent(streamId: string, message: JsonRpcMessage | undefined, data?: string): string | Promise<string>;
  /**
   * Call `send` in order for every stored message of the stream of `lastEventId` that came after
   * it, and return that stream's id; `undefined` when the id is unknown or expired.
   */
  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void,
  ): string | undefined | Promise<string | undefined>;
  /**
   * Optional: the stream holds its response and only a resumption can still want it; a store short
   * of room should drop such streams before live ones.
   */
  finishStream?(streamId: string): void | Promise<void>;
  /** Optional: the stream will not be resumed; its events may be dropped. */
  forgetStream?(streamId: string): void | Promise<void>;
}

/**
 * A store dropped a live stream (to stay within its bounds): its events, and the events still to
 * come, cannot be resumed.
 *
 * @example
 * if (log === undefined && tombstones.has(streamId)) throw new StreamEvictedError(streamId);
 */
export class StreamEvictedError extends LocalError {
  override name = 'StreamEvictedError';
  constructor(readonly streamId: string) {
    super(`Event stream ${streamId} was evicted from the event store`);
  }
}

/**
 * @example
 * new InMemoryEventStore({ maxBytes: 32 * 1024 * 1024, maxAgeMs: 5 * 60_000 });
 */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Default 100. */
  maxEventsPerStream?: number | undefined;
  /** Streams kept (live and finished). Default 10,000. */
  maxStreams?: number | undefined;
  /**
   * Size of all stored events (their JSON text, in UTF-16 code units ≈ bytes for JSON). Past it,
   * finished streams are dropped first (oldest first), then the oldest live stream. Default 64 MiB.
   */
  maxBytes?: number | undefined;
  /**
   * How long an event stays resumable: a finished stream is dropped once its last event is older,
   * a live stream loses its older events. Default 10 minutes.
   */
  maxAgeMs?: number | undefined;
  /** Clock (ms), for tests. Default `Date.now`. */
  now?: () => number;
}

/** One stream's retained events: `events[i]` has sequence number `first + i`. */
interface StreamLog {
  first: number;
  /** JSON text (or the message when the caller gave none); `undefined` = priming marker. */
  events: (string | JsonRpcMessage | undefined)[];
  sizes: number[];
  times: number[];
  bytes: number;
}

/** What a stored event costs beyond its text (ids, arrays). */
const EVENT_OVERHEAD = 32;

/**
 * The default {@link EventStore}: in process memory, bounded by count, bytes and age. Finished
 * streams are kept for resumption until room or age runs out; live streams go last, and a
 * live stream that had to go is refused from then on ({@link StreamEvictedError}).
 *
 * @example
 * const store = new InMemoryEventStore();
 * const id = store.storeEvent('s1:1', { jsonrpc: '2.0', method: 'notifications/progress' });
 * store.replayEventsAfter(id, (eventId, message) => console.log(eventId, message)); // 's1:1'
 */
export class InMemoryEventStore implements EventStore {
  /** Live streams, oldest first. */
  private readonly live = new Map<string, StreamLog>();
  /** Finished streams, least recently finished first. */
  private readonly finished = new Map<string, StreamLog>();
  /** Live streams that were evicted (bounded, oldest first). */
  private readonly evicted = new Set<string>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  private readonly maxBytes: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private bytes = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 100);
    this.maxStreams = Math.max(1, options.maxStreams ?? 10_000);
    this.maxBytes = Math.max(1, options.maxBytes ?? 64 * 1024 * 1024);
    this.maxAgeMs = Math.max(1, options.maxAgeMs ?? 10 * 60_000);
    this.now = options.now ?? Date.now;
  }

  /** Number of streams held (for tests and metrics). */
  get streamCount(): number {
    return this.live.size + this.finished.size;
  }

  /** Size of the stored events (for tests and metrics). */
  get storedBytes(): number {
    return this.bytes;
  }

  storeEvent(streamId: string, message: JsonRpcMessage | undefined, data?: string): string {
    const now = this.now();
    this.expire(now);
    let log = this.live.get(streamId) ?? this.finished.get(streamId);
    if (!log) {
      if (this.evicted.has(streamId)) throw new StreamEvictedError(streamId);
      if (this.streamCount >= this.maxStreams) this.evictOne(undefined);
      log = { first: 0, events: [], sizes: [], times: [], bytes: 0 };
      this.live.set(streamId, log);
    }
    const size =
      EVENT_OVERHEAD + (data?.length ?? (message === undefined ? 0 : JSON.stringify(message).length));
    const seq = log.first + log.events.length;
    log.events.push(data ?? message);
    log.sizes.push(size);
    log.times.push(now);
    log.bytes += size;
    this.bytes += size;
    // Old events of this stream go first: by count, then by age.
    while (
      log.events.length > this.maxEvents ||
      (log.events.length > 1 && log.times[0]! < now - this.maxAgeMs)
    )
      this.dropFirst(log);
    while (this.bytes > this.maxBytes && this.evictOne(log));
    while (this.bytes > this.maxBytes && log.events.length > 1) this.dropFirst(log);
    return `${streamId}_${seq}`;
  }

  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void,
  ): string | undefined {
    this.expire(this.now());
    const cut = lastEventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const seqText = lastEventId.slice(cut + 1);
    const seq = Number(seqText);
    if (!/^\d+$/.test(seqText) || !Number.isSafeInteger(seq)) return undefined;
    const log = this.live.get(streamId) ?? this.finished.get(streamId);
    if (!log || seq >= log.first + log.events.length) return undefined;
    for (let s = Math.max(seq + 1, log.first); s < log.first + log.events.length; s++) {
      const event = log.events[s - log.first];
      if (event === undefined) continue;
      send(`${streamId}_${s}`, typeof event === 'string' ? (JSON.parse(event) as JsonRpcMessage) : event);
    }
    return streamId;
  }

  finishStream(streamId: string): void {
    const log = this.live.get(streamId) ?? this.finished.get(streamId);
    if (!log) return;
    this.live.delete(streamId);
    this.finished.delete(streamId);
    this.finished.set(streamId, log);
  }

  forgetStream(streamId: string): void {
    const log = this.live.get(streamId) ?? this.finished.get(streamId);
    this.live.delete(streamId);
    this.finished.delete(streamId);
    this.evicted.delete(streamId);
    if (log) this.bytes -= log.bytes;
  }

  /** Drop finished streams whose last event is older than the age limit (oldest finish first). */
  private expire(now: number): void {
    const cutoff = now - this.maxAgeMs;
    for (const [streamId, log] of this.finished) {
      if (log.times[log.times.length - 1]! >= cutoff) break;
      this.forgetStream(streamId);
    }
  }

  /** Make room: the oldest finished stream, else the oldest live one other than `keep`. */
  private evictOne(keep: StreamLog | undefined): boolean {
    for (const [streamId] of this.finished) {
      this.forgetStream(streamId);
      return true;
    }
    for (const [streamId, log] of this.live) {
      if (log === keep) continue;
      this.forgetStream(streamId);
      this.evicted.add(streamId);
      if (this.evicted.size > this.maxStreams) this.evicted.delete(this.evicted.values().next().value!);
      return true;
    }
    return false;
  }

  private dropFirst(log: StreamLog): void {
    const size = log.sizes.shift()!;
    log.events.shift();
    log.times.shift();
    log.first++;
    log.bytes -= size;
    this.bytes -= size;
  }
}
