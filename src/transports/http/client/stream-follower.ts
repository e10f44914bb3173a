/**
 * Follow one logical SSE stream across connections: read it, and when the connection drops before
 * the stream is done, wait (the server's `retry`, else backoff) and resume it with GET +
 * `Last-Event-ID`, a bounded number of times.
 */
import { HttpTransportError } from '../../../core/http-errors.js';
import type { ReconnectPolicy } from './options.js';
import { reconnectDelay } from './options.js';
import { readSse, type SseCursor } from './sse-reader.js';

/** What every followed stream of one transport shares. */
export interface StreamSettings {
  readonly policy: ReconnectPolicy;
  readonly maxEventSize: number;
  /** One `message` event's data. */
  readonly onData: (data: string) => void;
}

/** What the follower needs from its transport for one stream. */
export interface StreamHost extends StreamSettings {
  /**
   * GET the stream again, with `Last-Event-ID` when one is known. Resolves with a 2xx
   * `text/event-stream` response; otherwise throws (an {@link HttpTransportError} with the status
   * for an HTTP refusal). Absent for a stream that cannot be resumed (2026-07-28 has no GET):
   * one that ends early is lost at once.
   */
  readonly reopen?: ((lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>) | undefined;
}

/** Outcome of {@link followStream}: finished (done or aborted), or given up with a cause. */
export type FollowResult = { lost: false } | { lost: true; cause: Error };

const FINISHED: FollowResult = { lost: false };

/**
 * Read `first`, then keep the stream alive until `isDone()` or `signal` aborts. A request's stream
 * (`needsEventId`) can only be resumed from an event id: a GET without one would open the
 * standalone stream, which never carries the response. The standalone stream may simply reopen.
 *
 * A connection that delivered at least one event counts as progress and resets the attempt count;
 * a failed GET, or a connection that ends without any event, uses one attempt. The stream is
 * given up when it cannot be resumed (no event id was ever seen), when the server refuses the GET
 * for good (4xx other than 408/409/429, e.g. 404 session gone or 405 no resumption), or after
 * `policy.maxAttempts` attempts in a row.
 *
 * @example
 * const result = await followStream(host, response, controller.signal, () => answered, true);
 * if (result.lost) onrequestlost(id, result.cause);
 */
export async function followStream(
  host: StreamHost,
  first: Response,
  signal: AbortSignal,
  isDone: () => boolean,
  needsEventId: boolean,
): Promise<FollowResult> {
  const cursor: SseCursor = { lastEventId: undefined, retryMs: undefined };
  let response: Response | undefined = first;
  let failures = 0;
  let cause: Error | undefined;
  for (;;) {
    if (response?.body) {
      try {
        const events = await readSse(response.body, cursor, host.onData, host.maxEventSize);
        if (events > 0) failures = 0;
        cause = undefined;
      } catch (error) {
        cause = asError(error);
      }
    }
    if (signal.aborted || isDone()) return FINISHED;
    if (!host.reopen) {
      return lost(cause, 'The SSE stream ended before the response, and it cannot be resumed (2026-07-28)');
    }
    if (needsEventId && cursor.lastEventId === undefined) {
      return lost(cause, 'The SSE stream ended before the response, and it has no event id to resume from');
    }
    if (failures >= host.policy.maxAttempts) {
      return lost(cause, `The SSE stream could not be resumed after ${failures} attempts`);
    }
    await sleep(reconnectDelay(host.policy, failures, cursor.retryMs), signal);
    if (signal.aborted || isDone()) return FINISHED;
    failures++;
    try {
      response = await host.reopen(cursor.lastEventId, signal);
    } catch (error) {
      if (signal.aborted) return FINISHED;
      response = undefined;
      cause = asError(error);
      if (isPermanentRefusal(cause)) return { lost: true, cause };
    }
  }
}

function lost(cause: Error | undefined, message: string): FollowResult {
  return { lost: true, cause: new HttpTransportError(message, undefined, { cause }) };
}

function isPermanentRefusal(error: Error): boolean {
  const status = error instanceof HttpTransportError ? error.status : undefined;
  return status !== undefined && status >= 400 && status < 500 && ![408, 409, 429].includes(status);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Wait `ms`, or less if `signal` aborts first; leaves no timer behind either way.
 *
 * @example
 * await sleep(500, controller.signal);
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
