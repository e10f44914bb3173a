/**
 * The finished streams of one session that a client may still resume: each holds its response in
 * the event store. The store bounds their bytes and age; the session bounds their number and drops
 * them all when it ends.
 */
import { allOf } from '../../transports/http/server-wire/background.js';
import { finishStream, forgetStream } from '../../transports/http/server-wire/stream-events.js';
import type { StreamHost } from '../../transports/http/server-wire/types.js';

/** Finished streams kept per session for resumption. */
const MAX_RETAINED_STREAMS = 16;

/**
 * @example
 * const retained = new RetainedStreams(host);
 * retained.keep('s1:4'); // after its response was stored
 * retained.clear();      // the session ended
 */
export class RetainedStreams {
  /** Oldest first. */
  private readonly ids: string[] = [];

  constructor(private readonly host: StreamHost) {}

  /**
   * Keep a finished stream resumable (the most recent few). Returns the store's writes when they
   * are asynchronous (never rejecting).
   */
  keep(streamId: string): Promise<unknown> | undefined {
    const finished = finishStream(this.host, streamId);
    this.ids.push(streamId);
    const forgot =
      this.ids.length > MAX_RETAINED_STREAMS ? forgetStream(this.host, this.ids.shift()!) : undefined;
    return allOf([finished, forgot]);
  }

  /** A client resumed the stream to its end: no longer kept. */
  release(streamId: string): void {
    const at = this.ids.indexOf(streamId);
    if (at >= 0) this.ids.splice(at, 1);
    void forgetStream(this.host, streamId);
  }

  /** The session ended: drop them all. Returns the store's writes when asynchronous. */
  clear(): Promise<unknown> | undefined {
    return allOf(this.ids.splice(0).map((streamId) => forgetStream(this.host, streamId)));
  }
}
