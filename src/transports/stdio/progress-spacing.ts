/**
 * When a request's answer may follow its progress on a stdio stream.
 *
 * The official SDK clients (`@modelcontextprotocol/sdk` 1.x, `@modelcontextprotocol/client` 2.x)
 * run a notification handler a microtask after they read the notification, but handle a response
 * at once and drop the request's progress callback with it. When the last progress and the answer
 * arrive in one read, that progress is lost. Two writes are not enough to prevent it: a pipe hands
 * the reader everything written since its last read, and a client process that was not scheduled
 * in between reads both at once. So the answer is written no sooner than a short spacing after the
 * last write that carried its request's progress. Measured with those clients on a busy 2-core
 * machine: a `setImmediate` between the writes changed nothing, 1 ms still lost a few percent of
 * last progress notifications, 2 ms and more only those of a client not scheduled for longer.
 */
import type { RequestId } from '../../core/jsonrpc.js';

/**
 * Default spacing between a request's last progress notification and its answer on stdio: 10 ms.
 *
 * @example
 * await serveStdio(server, { progressSpacingMs: DEFAULT_PROGRESS_SPACING_MS * 2 });
 */
export const DEFAULT_PROGRESS_SPACING_MS = 10;

/** Past this many remembered requests, those whose spacing has passed are forgotten. */
const SWEEP_AT = 1024;

/**
 * The time each request's progress was last written. Requests without progress never enter it, so
 * it stays empty (and is never consulted) on a connection that sends none.
 */
export class ProgressSpacing {
  private readonly writtenAt = new Map<RequestId, number>();

  constructor(
    /** The spacing in milliseconds; 0 turns it off. */
    readonly spacingMs: number,
  ) {}

  /** True while some request's progress was written and its answer not yet sent. */
  get tracking(): boolean {
    return this.writtenAt.size > 0;
  }

  /** The progress of `ids` was written at `now`. */
  wrote(ids: Iterable<RequestId>, now: number): void {
    for (const id of ids) {
      // Re-inserted so that the map stays in write order (the sweep stops at the first recent one).
      this.writtenAt.delete(id);
      this.writtenAt.set(id, now);
    }
    // A request cancelled after its progress gets no answer, which would leave it here for good.
    if (this.writtenAt.size > SWEEP_AT) this.sweep(now);
  }

  /**
   * The earliest time the answer to `id` may be written (0: any time), and forget `id`: a request
   * is answered once.
   */
  answerTime(id: RequestId): number {
    const written = this.writtenAt.get(id);
    if (written === undefined) return 0;
    this.writtenAt.delete(id);
    return written + this.spacingMs;
  }

  private sweep(now: number): void {
    for (const [id, written] of this.writtenAt) {
      if (written + this.spacingMs > now) return;
      this.writtenAt.delete(id);
    }
  }
}

/**
 * The request a `notifications/progress` message reports on: the request it was sent for (the
 * engine's `relatedRequestId`), else its progress token (the official SDK clients use the request
 * id as the token). Undefined for any other message.
 *
 * @example
 * progressOwner({ method: 'notifications/progress', params: { progressToken: 3, progress: 1 } }, undefined); // 3
 */
export function progressOwner(
  message: { method?: unknown; params?: unknown },
  relatedRequestId: RequestId | undefined,
): RequestId | undefined {
  if (message.method !== 'notifications/progress') return undefined;
  if (relatedRequestId !== undefined) return relatedRequestId;
  const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
