/**
 * The work behind `McpClient`'s task methods, for both eras (the era's wire is picked once per
 * call from the connection's era): start a tool call as a task, follow a task by id, read,
 * cancel and list tasks, and run a tool that only runs as a task to its end for a plain
 * `callTool`.
 */
import type { RequestOptions } from '../../core/engine/outbound.js';
import { RequestTimeoutError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { Meta } from '../../core/types/common.js';
import { RemovedInModernEraError, TasksNotSupportedError } from '../errors.js';
import { legacyTaskWire } from './legacy-task-wire.js';
import { modernTaskWire } from './modern-task-wire.js';
import { channelFor, checker, created, handle, settledChannel } from './task-handles.js';
import type { TaskFollowOptions, TaskHost, TaskListPage, ToolTaskOptions } from './task-host.js';
import { parseTask, type TaskInfo } from './task-info.js';
import type { ClientTaskWire } from './task-wire.js';
import type { ToolTask } from './tool-task.js';

export type { TaskFollowOptions, TaskHost, TaskListPage, ToolTaskOptions } from './task-host.js';

/** The connection's task wire. */
export function taskWireFor(host: TaskHost): ClientTaskWire {
  return host.lowLevel.era === 'modern' ? modernTaskWire(host) : legacyTaskWire(host.lowLevel);
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
