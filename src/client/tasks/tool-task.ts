/**
 * `ToolTask`: the client's handle on one task. It polls the task from the moment it exists
 * (`tasks/get` at the task's poll interval, bounded; a status notification polls at once), gives
 * the server what it asks on the way, and settles `result()` when the task ends. Cancelling it,
 * the caller's signal or the client's close stop the loop at once: no timer, request or
 * promise is left behind, and `result()` rejects with the reason.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import type { TypedCallToolResult } from '../call-options.js';
import { TaskCancelledError } from '../errors.js';
import { isTerminalStatus, pollDelay, type TaskInfo, type TaskStatus } from './task-info.js';
import type { TaskChannel, TaskSnapshot } from './task-wire.js';
import { StatusFeed } from './status-feed.js';

/** What a handle needs besides its channel. */
export interface ToolTaskSetup {
  channel: TaskChannel;
  /** Turns the task's raw result into the typed, checked one (shape, output schema). */
  check: (raw: JsonObject) => Promise<TypedCallToolResult>;
  /** Idle timeout of each poll request (the client's default when undefined). */
  timeoutMs: number | undefined;
  onStatus: ((task: TaskInfo) => void) | undefined;
  /** Called once the handle ended, however (the client forgets it). */
  ended: (task: ToolTask) => void;
  /** Reports a failed `onStatus` or a failed background cancel (never thrown). */
  report: (message: string, error: unknown) => void;
}

/**
 * A tool call running as a task (`McpClient.startToolTask`, `resumeTask`).
 *
 * @example
 * const task = await client.startToolTask('render', { scene: 'intro' }, { onStatus: (t) => console.error(t.status) });
 * console.error(`started task ${task.taskId}`);
 * const result = await task.result(); // polls until the task ends; its questions go to your handlers
 */
export class ToolTask<S extends JsonObject = JsonObject> {
  private last: TaskInfo;
  private readonly stop = new AbortController();
  private readonly feed = new StatusFeed();
  private readonly outcome: Promise<TypedCallToolResult<S>>;
  private wakeUp: (() => void) | undefined;
  private cancelling: Promise<void> | undefined;
  private finished = false;

  /** @internal Made by `McpClient`. */
  constructor(
    first: TaskSnapshot,
    private readonly setup: ToolTaskSetup,
  ) {
    this.last = first.task;
    this.tell(first.task);
    this.outcome = this.run(first) as Promise<TypedCallToolResult<S>>;
    // result() may never be called (a fire-and-forget task): its rejection is not unhandled.
    this.outcome.catch(() => undefined);
  }

  /** The task's id (the server chose it). */
  get taskId(): string {
    return this.last.taskId;
  }

  /** The task as last seen (a poll, a status notification, or the cancel). */
  get task(): TaskInfo {
    return this.last;
  }

  /** The status last seen. */
  get status(): TaskStatus {
    return this.last.status;
  }

  /**
   * The tool's result once the task ends. Rejects with the server's `McpError` (a task that
   * `failed` with a JSON-RPC error), {@link TaskCancelledError}, the caller's abort or timeout,
   * or the client's `ConnectionClosedError`.
   */
  result(): Promise<TypedCallToolResult<S>> {
    return this.outcome;
  }

  /**
   * Cancel the task (`tasks/cancel`) and stop polling; `result()` rejects with
   * {@link TaskCancelledError}. Resolves once the server acknowledged; a no-op after the end.
   */
  cancel(): Promise<void> {
    return this.abandon(
      new TaskCancelledError(this.taskId, `Task ${this.taskId} was cancelled by the client`),
    );
  }

  /**
   * Every status change from now on (starting with the one last seen), until the task ends.
   *
   * @example
   * for await (const t of task.statuses()) console.error(t.status, t.statusMessage ?? '');
   */
  statuses(): AsyncIterableIterator<TaskInfo> {
    return this.feed.subscribe(this.last);
  }

  /** @internal A status notification (2025-11-25) about this task: noted, and a poll at once. */
  notified(task: TaskInfo): void {
    this.see(task);
    this.wakeUp?.();
  }

  /** @internal Something worth a poll happened (a legacy `tasks/result` settled). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * @internal Stop for `reason` and cancel the task on the server (caller abort, timeout).
   * The cancel is sent once; later calls wait for it.
   */
  abandon(reason: Error): Promise<void> {
    if (this.finished && this.cancelling === undefined) return Promise.resolve();
    this.cancelling ??= this.sendCancel(reason);
    return this.cancelling;
  }

  /** @internal The client closed: stop, send nothing. */
  close(reason: Error): void {
    this.stop.abort(reason);
  }

  private async sendCancel(reason: Error): Promise<void> {
    this.stop.abort(reason);
    const seen = await this.setup.channel.cancel({ timeoutMs: this.setup.timeoutMs });
    this.see(seen ?? { ...this.last, status: 'cancelled' });
  }

  private async run(first: TaskSnapshot): Promise<TypedCallToolResult> {
    const options = { signal: this.stop.signal, timeoutMs: this.setup.timeoutMs };
    let snapshot = first;
    try {
      for (;;) {
        this.see(snapshot.task);
        if (isTerminalStatus(snapshot.task.status))
          return await this.setup.check(await this.setup.channel.finish(snapshot, options));
        if (snapshot.task.status === 'input_required') await this.input(snapshot, options);
        await this.pause(pollDelay(snapshot.task));
        snapshot = await this.setup.channel.get(options);
      }
    } catch (error) {
      // Stopped on purpose: the reason, not the abort error of whichever request was open.
      throw this.stop.signal.aborted ? this.stop.signal.reason : error;
    } finally {
      this.finished = true;
      this.stop.abort(new TaskCancelledError(this.taskId, 'The task handle ended'));
      this.feed.end();
      this.setup.ended(this);
    }
  }

  private async input(snapshot: TaskSnapshot, options: { signal: AbortSignal }): Promise<void> {
    try {
      await this.setup.channel.input(snapshot, options);
    } catch (error) {
      // Nobody can answer: the task would wait until its TTL. Cancel it, report what failed.
      if (!this.stop.signal.aborted)
        void this.abandon(error as Error).catch((e: unknown) => this.setup.report('tasks/cancel failed', e));
      throw error;
    }
  }

  private pause(ms: number): Promise<void> {
    const signal = this.stop.signal;
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wakeUp = undefined;
      };
      const onAbort = (): void => {
        done();
        reject(signal.reason as Error);
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      this.wakeUp = () => {
        done();
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private see(task: TaskInfo): void {
    const last = this.last;
    if (task === last) return;
    // A final status never changes (a late notification must not make it look alive again).
    if (isTerminalStatus(last.status)) return;
    if (
      last.status === task.status &&
      last.statusMessage === task.statusMessage &&
      last.lastUpdatedAt === task.lastUpdatedAt
    )
      return;
    this.last = task;
    this.feed.push(task);
    this.tell(task);
  }

  private tell(task: TaskInfo): void {
    try {
      this.setup.onStatus?.(task);
    } catch (error) {
      this.setup.report('onStatus failed', error);
    }
  }
}
