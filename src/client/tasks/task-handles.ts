/**
 * Making a task handle: its channel (with the wire's wake-ups routed to it), the caller's signal
 * (an abort cancels the task, also one still being created), the check of its result, and the
 * handle of a task the server never made (it answered at once).
 */
import { RequestAbortedError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { TypedCallToolResult } from '../call-options.js';
import { checkCallToolResult } from '../result-checks.js';
import type { TaskFollowOptions, TaskHost } from './task-host.js';
import type { ClientTaskWire, TaskChannel, TaskSnapshot, TaskStart } from './task-wire.js';
import { ToolTask } from './tool-task.js';

/** A task's channel, and how to point the wire's wake-ups at the handle made after it. */
export interface BoundChannel {
  channel: TaskChannel;
  bind: (task: ToolTask) => void;
}

/** The legacy wire wakes the handle when its `tasks/result` settles: route that to the handle. */
export function channelFor(wire: ClientTaskWire, taskId: string): BoundChannel {
  let target: ToolTask | undefined;
  const channel = wire.channel(taskId, () => target?.wake());
  return { channel, bind: (task) => (target = task) };
}

export function handle<S extends JsonObject>(
  host: TaskHost,
  first: TaskSnapshot,
  { channel, bind }: BoundChannel,
  options: TaskFollowOptions & { check: (raw: JsonObject) => Promise<TypedCallToolResult> },
): ToolTask<S> {
  const logger = host.logger;
  const task = new ToolTask<S>(first, {
    channel,
    check: options.check,
    timeoutMs: options.timeoutMs,
    onStatus: options.onStatus,
    ended: (ended) => host.tracker.remove(ended),
    report: (message, error) => logger?.error(`task ${first.task.taskId}: ${message}`, error),
  });
  bind(task);
  host.tracker.add(task);
  followSignal(task, options.signal, host);
  return task;
}

/** The caller's signal cancels the task; the listener goes when the task ends. */
function followSignal(task: ToolTask, signal: AbortSignal | undefined, host: TaskHost): void {
  if (signal === undefined) return;
  const onAbort = (): void => {
    task
      .abandon(new RequestAbortedError({ cause: signal.reason }))
      .catch((error: unknown) => host.logger?.debug(`tasks/cancel ${task.taskId} failed`, error));
  };
  if (signal.aborted) {
    onAbort();
    return;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  const off = (): void => signal.removeEventListener('abort', onAbort);
  task.result().then(off, off);
}

/**
 * The creating `tools/call` is not aborted with the caller's signal: the server may have made the
 * task already, and only its answer names it. An abort rejects at once; the task named by the
 * answer, when it comes, is cancelled (`tasks/cancel`), so no task is left running unseen.
 */
export function created(
  wire: ClientTaskWire,
  starting: Promise<TaskStart>,
  signal: AbortSignal | undefined,
  host: TaskHost,
): Promise<TaskStart> {
  if (signal === undefined) return starting;
  const cancelLate = (started: TaskStart): void => {
    if (!('task' in started)) return;
    const taskId = started.task.task.taskId;
    wire
      .channel(taskId, () => undefined)
      .cancel({})
      .catch((error: unknown) => host.logger?.debug(`tasks/cancel ${taskId} failed`, error));
  };
  if (signal.aborted) {
    starting.then(cancelLate, () => undefined);
    return Promise.reject(new RequestAbortedError({ cause: signal.reason }));
  }
  return new Promise<TaskStart>((resolve, reject) => {
    const onAbort = (): void => {
      starting.then(cancelLate, () => undefined);
      reject(new RequestAbortedError({ cause: signal.reason }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    void starting.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A task the server never made (it answered at once): a handle that is already completed. */
export function settledChannel(result: JsonObject): TaskChannel {
  return {
    get: () => Promise.reject(new Error('unreachable: the handle is completed')),
    cancel: () => Promise.resolve(undefined),
    input: () => Promise.resolve(),
    finish: () => Promise.resolve(result),
  };
}

export function checker(host: TaskHost, name: string | undefined, validateOutput: boolean | undefined) {
  return async (raw: JsonObject): Promise<TypedCallToolResult> => {
    const result = checkCallToolResult<TypedCallToolResult>(raw, name ?? 'task');
    if (name !== undefined && (validateOutput ?? host.validateOutput ?? true))
      await host.outputSchemas.check(name, result);
    return result;
  };
}
