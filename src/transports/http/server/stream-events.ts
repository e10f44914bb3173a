/**
 * Event-store plumbing shared by every stream: store-then-write (synchronous stores write at
 * once, asynchronous ones when the id arrives), priming, and forgetting finished streams.
 */
import type { Logger } from '../../../core/engine/connection.js';
import type { JsonRpcMessage } from '../../../core/jsonrpc.js';
import type { EventStore } from './event-store.js';
import type { KeepAlive, SseWriter } from './sse-writer.js';

/** What every session transport of one handler shares (one object, not one copy per session). */
export interface StreamHost {
  readonly store: EventStore | undefined;
  readonly retryMs: number;
  readonly keepAlive: KeepAlive | undefined;
  readonly logger: Logger;
}

export const RESOLVED = Promise.resolve();
const NOTHING_WRITTEN: ReadonlySet<string> = new Set();

/**
 * Store `message` (`undefined`: a priming marker) as the next event of `streamId`, then call
 * `write` with its event id. A failing store is logged and `write` runs without an id.
 *
 * @example
 * void storeThen(host, 's:1', message, (id) => writer.event(id, data));
 */
export function storeThen(
  host: StreamHost,
  streamId: string,
  message: JsonRpcMessage | undefined,
  write: (eventId: string | undefined) => void,
): Promise<void> {
  let id: string | Promise<string>;
  try {
    id = host.store!.storeEvent(streamId, message);
  } catch (error) {
    host.logger.error('event store failed to store an event', error);
    write(undefined);
    return RESOLVED;
  }
  if (typeof id === 'string') {
    write(id);
    return RESOLVED;
  }
  return id.then(write, (error: unknown) => {
    host.logger.error('event store failed to store an event', error);
    write(undefined);
  });
}

/** Write the priming event (id, empty data, `retry`) first, whatever else is sent meanwhile. */
export function primeWriter(host: StreamHost, writer: SseWriter, streamId: string): void {
  writer.hold();
  void storeThen(host, streamId, undefined, (id) => {
    if (id !== undefined) writer.prime(id, host.retryMs);
    writer.release(NOTHING_WRITTEN);
  });
}

/** Tell the store a stream will not be resumed. */
export function forgetStream(host: StreamHost, streamId: string): void {
  try {
    const done = host.store?.forgetStream?.(streamId);
    if (done instanceof Promise)
      done.catch((error: unknown) => host.logger.debug('forgetStream failed', error));
  } catch (error) {
    host.logger.debug('forgetStream failed', error);
  }
}
