/**
 * The request a task's handler runs under, once the request that started it has been answered:
 * the task's own signal (cancel, server close), progress as the task's `statusMessage`, and no
 * stream to write notifications on.
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import type { JsonObject, RequestId } from '../../core/jsonrpc.js';
import type { MessageInfo } from '../../core/transport.js';
import type { InputChannel } from '../input-channel.js';

/**
 * What a handler context uses of its request (a `RequestContext` is one).
 *
 * @example
 * const request: ContextRequest = ctx; // a RequestContext
 */
export type ContextRequest = Pick<
  RequestContext,
  'id' | 'method' | 'signal' | 'sessionId' | 'meta' | 'info' | 'ended' | 'progress' | 'notify'
> &
  InputChannel;

/**
 * A task's {@link ContextRequest}.
 *
 * @example
 * const request = new TaskRequestContext(ctx, controller.signal, (message) => setStatusMessage(message));
 */
export class TaskRequestContext implements ContextRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly sessionId: string | undefined;
  readonly meta: JsonObject | undefined;
  readonly info: MessageInfo | undefined;

  constructor(
    origin: Pick<RequestContext, 'id' | 'method' | 'sessionId' | 'meta' | 'info'>,
    readonly signal: AbortSignal,
    private readonly onProgress: (message: string) => void,
  ) {
    this.id = origin.id;
    this.method = origin.method;
    this.sessionId = origin.sessionId;
    this.meta = origin.meta;
    // Auth facts stay; the stream of the original request is gone.
    if (origin.info === undefined) this.info = undefined;
    else {
      const { closeSSEStream: _gone, ...facts } = origin.info;
      this.info = facts;
    }
  }

  get ended(): boolean {
    return this.signal.aborted;
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    if (!this.signal.aborted)
      this.onProgress(message ?? (total === undefined ? String(progress) : `${progress}/${total}`));
    return Promise.resolve();
  }

  /** A task has no stream of its own: notifications (log messages) are dropped. */
  notify(): Promise<void> {
    return Promise.resolve();
  }

  /** Never used: a task's context has its own channel. */
  request(): Promise<JsonObject> {
    return Promise.reject(new Error('A task sends no requests of its own'));
  }
}
