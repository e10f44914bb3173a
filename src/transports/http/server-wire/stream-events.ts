/**
 * Event-store plumbing shared by every stream: store-then-write (synchronous stores write at
 * once, asynchronous ones when the id arrives), priming, and finishing or forgetting streams.
 */
import type { JsonRpcMessage } from '../../../core/jsonrpc.js';
import { StreamEvictedError } from './event-store.js';
import type { SseWriter } from './sse-writer.js';
import type { StreamHost } from './types.js';

export const RESOLVED = Promise.resolve();
const NOTHING_WRITTEN: ReadonlySet<string> = new Set();

/**
 * Store `message` (`undefined`: a priming marker; `data`: its JSON text) as the next event of
 * `streamId`, then call `write` with its event id. A failing store is logged and `write` runs
 * without an id; a store that evicted the live stream calls `evicted` instead.
 *
 * @example
 * void storeThen(host, 's:1', message, data, (id) => writer.event(id, data));
 */
export function storeThen(
  host: StreamHost,
  streamId: string,
  message: JsonRpcMessage | undefined,
  data: string | undefined,
  write: (eventId: string | undefined) => void,
  evicted?: () => void,
): Promise<void> {
  const failed = (error: unknown): void => {
    if (error instanceof StreamEvictedError && evicted) return evicted();
    host.logger.error('event store failed to store an event', error);
    write(undefined);
  };
  let id: string | Promise<string>;
  try {
    id = host.store!.storeEvent(streamId, message, data);
  } catch (error) {
    failed(error);
    return RESOLVED;
  }
  if (typeof id === 'string') {
    write(id);
    return RESOLVED;
  }
  return id.then(write, failed);
}

/** Write the priming event (id, empty data, `retry`) first, whatever else is sent meanwhile. */
export function primeWriter(host: StreamHost, writer: SseWriter, streamId: string): void {
  writer.hold();
  void storeThen(host, streamId, undefined, undefined, (id) => {
    if (id !== undefined) writer.prime(id, host.retryMs);
    writer.release(NOTHING_WRITTEN);
  });
}

/**
 * Tell the store a stream will not be resumed. Returns the store's write when it is asynchronous
 * (it never rejects: a failure is logged), for a host `waitUntil`.
 */
export function forgetStream(host: StreamHost, streamId: string): Promise<void> | undefined {
  return settleQuietly(host, () => host.store?.forgetStream?.(streamId), 'forgetStream');
}

/**
 * Tell the store a stream holds its response: kept for resumption, evicted before live ones.
 * Returns the store's write as {@link forgetStream} does.
 */
export function finishStream(host: StreamHost, streamId: string): Promise<void> | undefined {
  return settleQuietly(host, () => host.store?.finishStream?.(streamId), 'finishStream');
}

function settleQuietly(
  host: StreamHost,
  call: () => void | Promise<void>,
  what: string,
): Promise<void> | undefined {
  try {
    const done = call();
    if (done instanceof Promise)
      return done.catch((error: unknown) => host.logger.debug(`${what} failed`, error));
  } catch (error) {
    host.logger.debug(`${what} failed`, error);
  }
  return undefined;
}
