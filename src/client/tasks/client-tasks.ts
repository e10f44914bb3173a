/**
 * The work behind `McpClient`'s task methods, for both eras (the era's wire is picked once per
 * call from the connection's era): start a tool call as a task, follow a task by id, read,
 * cancel and list tasks, and run a tool that only runs as a task to its end for a plain
 * `callTool`.
 */
import type { Logger } from '../../core/engine/connection-types.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import { RequestAbortedError, RequestTimeoutError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { Meta } from '../../core/types/common.js';
import type { TypedCallToolResult } from '../call-options.js';
import type { Client } from '../client.js';
import { RemovedInModernEraError, TasksNotSupportedError } from '../errors.js';
import type { ToolHeaderMap } from '../modern/tool-headers.js';
import type { OutputSchemaCache } from '../output-schemas.js';
import { checkCallToolResult } from '../result-checks.js';
import { legacyTaskWire } from './legacy-task-wire.js';
import { modernTaskWire } from './modern-task-wire.js';
import { parseTask, type TaskInfo } from './task-info.js';
import type { TaskSupportCache } from './task-support.js';
import type { TaskTracker } from './task-tracker.js';
import type { ClientTaskWire, TaskChannel, TaskSnapshot, TaskStart } from './task-wire.js';
import { ToolTask } from './tool-task.js';

/**
 * What the task methods need from their `McpClient`.
 *
 * @example
 * const host: TaskHost = { lowLevel, toolHeaders, outputSchemas, validateOutput: true, logger: undefined, tracker, taskSupport, refresh };
 */
export interface TaskHost {
  readonly lowLevel: Client;
  readonly toolHeaders: ToolHeaderMap;
  readonly outputSchemas: OutputSchemaCache;
  readonly validateOutput: boolean | undefined;
  readonly logger: Logger | undefined;
  readonly tracker: TaskTracker;
  readonly taskSupport: TaskSupportCache;
  refresh(options: RequestOptions): Promise<void>;
}

/**
 * Options of `McpClient.startToolTask`.
 *
 * @example
 * const options: ToolTaskOptions = { ttlMs: 3_600_000, signal: controller.signal, onStatus: (t) => console.error(t.status) };
 */
export interface ToolTaskOptions {
  /** How long the server should keep the task (2025-11-25 `task.ttl`; 2026-07-28: the server decides). */
  ttlMs?: number | undefined;
  /** Aborting it cancels the task (`tasks/cancel`) and rejects `result()` with `RequestAbortedError`. */
  signal?: AbortSignal | undefined;
  /** Idle timeout of each request (the `tools/call`, each poll); the task itself has none. */
  timeoutMs?: number | undefined;
  /** Called with the task at the start and at every status change. */
  onStatus?: ((task: TaskInfo) => void) | undefined;
  /** Check `structuredContent` against the cached `outputSchema` (default: the client's setting). */
  validateOutput?: boolean | undefined;
  /** `_meta` to send with the `tools/call`. */
  meta?: Meta | undefined;
}

/**
 * Options of `McpClient.resumeTask` / `taskResult`.
 *
 * @example
 * const result = await client.taskResult(id, { timeoutMs: 10_000 });
 */
export type TaskFollowOptions = Pick<ToolTaskOptions, 'signal' | 'timeoutMs' | 'onStatus'>;

/**
 * A page of `tasks/list` (2025-11-25).
 *
 * @example
 * const { tasks, nextCursor }: TaskListPage = await client.listTasks();
 */
export interface TaskListPage {
  tasks: TaskInfo[];
  nextCursor?: string;
}

/** The connection's task wire. */
export function taskWireFor(host: TaskHost): ClientTaskWire {
  return host.lowLevel.era === 'modern' ? modernTaskWire(host) : legacyTaskWire(host.lowLevel);
}

function handle<S extends JsonObject>(
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
function created(
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
function settledChannel(result: JsonObject): TaskChannel {
  return {
    get: () => Promise.reject(new Error('unreachable: the handle is completed')),
    cancel: () => Promise.resolve(undefined),
    input: () => Promise.resolve(),
    finish: () => Promise.resolve(result),
  };
}

function checker(host: TaskHost, name: string | undefined, validateOutput: boolean | undefined) {
  return async (raw: JsonObject): Promise<TypedCallToolResult> => {
    const result = checkCallToolResult<TypedCallToolResult>(raw, name ?? 'task');
    if (name !== undefined && (validateOutput ?? host.validateOutput ?? true))
      await host.outputSchemas.check(name, result);
    return result;
  };
}

/**
 * Start `tools/call` as a task (see `McpClient.startToolTask`).
 *
 * @example
 * const task = await startToolTask(host, 'render', { scene: 'intro' }, { ttlMs: 60_000 });
 */
export async function startToolTask<S extends JsonObject>(
  host: TaskHost,
  name: string,
  args: JsonObject | undefined,
  options: ToolTaskOptions = {},
): Promise<ToolTask<S>> {
  const wire = taskWireFor(host);
  wire.assertSupported(`tools/call ${name} as a task`);
  const started = await created(
    wire,
    wire.start({ name, args, meta: options.meta, ttlMs: options.ttlMs }, { timeoutMs: options.timeoutMs }),
    options.signal,
    host,
  );
  const check = checker(host, name, options.validateOutput);
  if ('result' in started) {
    const now = new Date().toISOString();
    const done: TaskInfo = {
      taskId: '',
      status: 'completed',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: null,
    };
    const settled = { channel: settledChannel(started.result), bind: () => undefined };
    return handle<S>(host, { task: done, raw: {} }, settled, { ...options, check });
  }
  return handle<S>(host, started.task, channelFor(wire, started.task.task.taskId), { ...options, check });
}

/** A task's channel, and how to point the wire's wake-ups at the handle made after it. */
interface BoundChannel {
  channel: TaskChannel;
  bind: (task: ToolTask) => void;
}

/** The legacy wire wakes the handle when its `tasks/result` settles: route that to the handle. */
function channelFor(wire: ClientTaskWire, taskId: string): BoundChannel {
  let target: ToolTask | undefined;
  const channel = wire.channel(taskId, () => target?.wake());
  return { channel, bind: (task) => (target = task) };
}

/**
 * Follow a task this client (or another) started, by id: a handle like `startToolTask`'s.
 *
 * @example
 * const task = await resumeTask(host, id, {});
 */
export async function resumeTask<S extends JsonObject>(
  host: TaskHost,
  taskId: string,
  options: TaskFollowOptions = {},
): Promise<ToolTask<S>> {
  const wire = taskWireFor(host);
  wire.assertSupported(`tasks/get ${taskId}`);
  const bound = channelFor(wire, taskId);
  const first = await bound.channel.get({ signal: options.signal, timeoutMs: options.timeoutMs });
  return handle<S>(host, first, bound, { ...options, check: checker(host, undefined, false) });
}

/**
 * `tasks/get`: the task as the server shows it now.
 *
 * @example
 * const task = await getTask(host, id, {});
 */
export async function getTask(
  host: TaskHost,
  taskId: string,
  options: RequestOptions = {},
): Promise<TaskInfo> {
  const wire = taskWireFor(host);
  wire.assertSupported(`tasks/get ${taskId}`);
  return (await wire.channel(taskId, () => undefined).get(options)).task;
}

/**
 * `tasks/cancel`.
 *
 * @example
 * await cancelTask(host, id, {});
 */
export async function cancelTask(
  host: TaskHost,
  taskId: string,
  options: RequestOptions = {},
): Promise<void> {
  const wire = taskWireFor(host);
  wire.assertSupported(`tasks/cancel ${taskId}`);
  await wire.channel(taskId, () => undefined).cancel(options);
}

/**
 * One page of `tasks/list` (2025-11-25 only: 2026-07-28 removed it).
 *
 * @example
 * const page = await listTasksPage(host, {}, {});
 */
export async function listTasksPage(
  host: TaskHost,
  params: { cursor?: string | undefined },
  options: RequestOptions = {},
): Promise<TaskListPage> {
  if (host.lowLevel.era === 'modern')
    throw new RemovedInModernEraError(
      'tasks/list',
      'the tasks extension has no task list: keep the ids of the tasks you start',
    );
  const tasks = host.lowLevel.serverCapabilities?.tasks;
  if (typeof tasks !== 'object' || tasks === null || !('list' in tasks))
    throw new TasksNotSupportedError('tasks/list: the server did not declare tasks.list in initialize');
  const request: JsonObject = params.cursor === undefined ? {} : { cursor: params.cursor };
  const raw = await host.lowLevel.request('tasks/list', request, options);
  if (!Array.isArray(raw.tasks))
    throw new TasksNotSupportedError('tasks/list: the answer has no tasks array');
  const page: TaskListPage = { tasks: raw.tasks.map((task) => parseTask(task, 'legacy', 'tasks/list')) };
  if (typeof raw.nextCursor === 'string') page.nextCursor = raw.nextCursor;
  return page;
}

/**
 * A plain `callTool` of a tool that runs only as a task: start it, follow it to its end, return
 * the raw result. The call's signal and its `maxTotalTimeoutMs` (default 10 min) cancel the
 * task; `timeoutMs` bounds each request.
 *
 * @example
 * const raw = await callToolAsTask(host, 'render', args, undefined, { signal, maxTotalTimeoutMs: 3_600_000 });
 */
export async function callToolAsTask(
  host: TaskHost,
  name: string,
  args: JsonObject | undefined,
  meta: Meta | undefined,
  options: RequestOptions,
): Promise<JsonObject> {
  const task = await startToolTask(host, name, args, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    meta,
    validateOutput: false,
  });
  const total =
    options.maxTotalTimeoutMs ??
    host.lowLevel.options.connection?.requestDefaults?.maxTotalTimeoutMs ??
    600_000;
  if (!Number.isFinite(total)) return task.result();
  const timer = setTimeout(() => {
    task.abandon(new RequestTimeoutError(total)).catch((error: unknown) => {
      host.logger?.debug(`tasks/cancel ${task.taskId} failed`, error);
    });
  }, total);
  try {
    return await task.result();
  } finally {
    clearTimeout(timer);
  }
}
