/**
 * The 2025-11-25 task wire (experimental tasks, SEP-1686), client side: `tools/call` with
 * `params.task: { ttl }` answers `{ task }` (nested); `tasks/get` and `tasks/cancel` answer the
 * task flat; the result, or the JSON-RPC error, comes from `tasks/result`, which blocks until
 * the task ends. A task that is `input_required` sends its elicitation/sampling requests on a
 * `tasks/result` stream only, so the client opens one at once and keeps it open (they are
 * answered by the client's usual handlers); its answer is the result.
 */
import type { RequestOptions } from '../../core/engine/outbound.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import type { Client } from '../client.js';
import { ProtocolViolationError, TaskCancelledError, TasksNotSupportedError } from '../errors.js';
import { objectAt, parseTask } from './task-info.js';
import type { ClientTaskWire, TaskChannel, TaskSnapshot, TaskStart, TaskStartRequest } from './task-wire.js';

/** Whether the server declared `tasks.requests.tools.call` in `initialize`. */
export function legacyRunsToolTasks(client: Client): boolean {
  const tasks = client.serverCapabilities?.tasks;
  const requests = isJsonObject(tasks) ? objectAt(tasks, 'requests') : undefined;
  const tools = requests === undefined ? undefined : objectAt(requests, 'tools');
  return tools !== undefined && isJsonObject(tools.call);
}

function snapshot(raw: JsonObject, what: string): TaskSnapshot {
  return { task: parseTask(raw, 'legacy', what), raw };
}

/** A `tasks/result` that may wait as long as the task runs: ended by the loop's signal. */
function waiting(options: RequestOptions): RequestOptions {
  return { ...options, timeoutMs: Infinity, maxTotalTimeoutMs: Infinity };
}

class LegacyChannel implements TaskChannel {
  /** The open `tasks/result` (opened at `input_required`), reused for the result. */
  private payload: Promise<JsonObject> | undefined;

  constructor(
    private readonly client: Client,
    private readonly taskId: string,
    private readonly wake: () => void,
  ) {}

  async get(options: RequestOptions): Promise<TaskSnapshot> {
    return snapshot(await this.client.request('tasks/get', { taskId: this.taskId }, options), 'tasks/get');
  }

  async cancel(options: RequestOptions): Promise<TaskSnapshot['task'] | undefined> {
    const raw = await this.client.request('tasks/cancel', { taskId: this.taskId }, options);
    return raw.taskId === undefined ? undefined : parseTask(raw, 'legacy', 'tasks/cancel');
  }

  input(_snapshot: TaskSnapshot, options: RequestOptions): Promise<void> {
    if (this.payload === undefined) {
      this.payload = this.client.request('tasks/result', { taskId: this.taskId }, waiting(options));
      // Settled (result or error): worth a poll now rather than at the next interval.
      this.payload.then(this.wake, this.wake);
    }
    return Promise.resolve();
  }

  async finish({ task }: TaskSnapshot, options: RequestOptions): Promise<JsonObject> {
    if (task.status === 'cancelled') throw new TaskCancelledError(task.taskId, cancelledText(task));
    // `failed`: a JSON-RPC error comes back as that error; a tool error (`isError`) as its result.
    const result = await (this.payload ??
      this.client.request('tasks/result', { taskId: task.taskId }, options));
    if (!isJsonObject(result)) throw new ProtocolViolationError('tasks/result: the answer is not an object');
    return result;
  }
}

function cancelledText(task: TaskSnapshot['task']): string {
  return task.statusMessage === undefined
    ? `Task ${task.taskId} was cancelled`
    : `Task ${task.taskId} was cancelled: ${task.statusMessage}`;
}

/**
 * The 2025-11-25 wire over `client` (see the file comment).
 *
 * @example
 * const wire = legacyTaskWire(client.lowLevel);
 * const started = await wire.start({ name: 'render', args: {}, meta: undefined, ttlMs: 60_000 }, {});
 */
export function legacyTaskWire(client: Client): ClientTaskWire {
  return {
    format: 'legacy',
    assertSupported(what: string): void {
      if (legacyRunsToolTasks(client)) return;
      throw new TasksNotSupportedError(
        `${what}: the server does not run tool calls as tasks (it did not declare tasks.requests.tools.call in initialize)`,
      );
    },
    async start(request: TaskStartRequest, options: RequestOptions): Promise<TaskStart> {
      const task: JsonObject =
        request.ttlMs === undefined ? {} : { ttl: Math.max(0, Math.round(request.ttlMs)) };
      const params: JsonObject = { name: request.name, task };
      if (request.args !== undefined) params.arguments = request.args;
      if (request.meta !== undefined) params._meta = request.meta;
      const raw = await client.request('tools/call', params, options);
      const created = raw.task;
      if (created === undefined && Array.isArray(raw.content)) return { result: raw };
      if (!isJsonObject(created))
        throw new ProtocolViolationError(
          `tools/call ${request.name}: a task was asked for, but the answer has neither a task nor content`,
        );
      return { task: snapshot(created, `tools/call ${request.name}`) };
    },
    channel: (taskId, wake) => new LegacyChannel(client, taskId, wake),
  };
}
