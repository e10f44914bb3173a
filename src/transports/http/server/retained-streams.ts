/**
 * The finished streams of one session that a client may still resume: each holds its response in
 * the event store. The store bounds their bytes and age; the session bounds their number and drops
 * them all when it ends.
 */
import { finishStream, forgetStream } from './stream-events.js';
import type { StreamHost } from './types.js';

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

  /** Keep a finished stream resumable (the most recent few). */
  keep(streamId: string): void {
    finishStream(this.host, streamId);
    this.ids.push(streamId);
    if (this.ids.length > MAX_RETAINED_STREAMS) forgetStream(this.host, this.ids.shift()!);
  }

  /** A client resumed the stream to its end: no longer kept. */
  release(streamId: string): void {
    const at = this.ids.indexOf(streamId);
    if (at >= 0) this.ids.splice(at, 1);
    forgetStream(this.host, streamId);
  }

  /** The session ended: drop them all. */
  clear(): void {
    for (const streamId of this.ids.splice(0)) forgetStream(this.host, streamId);
  }
}
