/**
 * One unit of the stdio writer's output: the lines sent together, the promise their sends share,
 * and what the writer must know to keep a request's progress apart from its answer.
 */
import type { RequestId } from '../../core/jsonrpc.js';

const ignore = (): void => undefined;

/** Lines written to the stream in one `write`, and the promise every one of their sends returned. */
export class WriteBatch {
  text = '';
  /**
   * Requests with a `notifications/progress` line in {@link text}. Undefined while there is none,
   * which is the usual case: a batch without progress costs nothing more.
   */
  progress: Set<RequestId> | undefined = undefined;
  /**
   * Waits for its time instead of going out at the end of the tick: it carries the answer to a
   * request whose progress was written a moment ago (see `ProgressSpacing`).
   */
  afterGap = false;
  /** `afterGap`: not written before this time (`performance.now()` clock). */
  notBefore = 0;
  /** `afterGap`: also wait the spacing after the write of the batch before it. */
  afterPrevious = false;
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (error: Error) => void;

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Shared by every send of the batch: a caller that drops its promise must not make the
    // rejection unhandled for everyone.
    this.done.catch(ignore);
  }

  /** Note that this batch carries progress for request `id`. */
  addProgress(id: RequestId): void {
    (this.progress ??= new Set()).add(id);
  }
}
