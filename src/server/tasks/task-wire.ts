/**
 * What differs per protocol era for tasks, behind one interface: whether a `tools/call` becomes a
 * task, who owns it, how a task looks on the wire and which `tasks/*` methods exist. Each era's
 * `HandlerRequest` carries one (`request.tasks`); the task manager and the registries never ask
 * which era they serve. 2026-07-28 (the tasks extension): modern/tasks-wire.ts. 2025-11-25: none
 * legacy-tasks-wire.ts ({@link NO_TASK_WIRE} when the server offers no task tools).
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { ToolExecution } from '../../core/types/tools.js';
import { ErrorCode, McpError } from '../../core/errors.js';
import { methodNotFound } from '../method-not-found.js';
import type { TaskManager } from './task-manager.js';
import type { TaskRecord } from './task-store.js';

/**
 * A tool's `execution.taskSupport` (absent = `forbidden`).
 *
 * @example
 * const support: TaskSupport = 'optional';
 */
export type TaskSupport = NonNullable<ToolExecution['taskSupport']>;

/**
 * One era's task wire, for one request.
 *
 * @example
 * if (request.tasks.mode('optional', 'slow') === 'task') return startToolTask(...);
 */
export interface TaskWire {
  /** The record's `format`. */
  readonly format: TaskRecord['format'];
  /**
   * How a call of a tool with `support` runs for this request: `task`, or `direct` (the usual
   * answer). Throws the era's refusal when the tool needs a task the request cannot take, or
   * (2025-11-25) the call asks for one the tool does not offer. `params` are the call's (2025-11-25
   * reads `params.task`).
   */
  mode(support: TaskSupport, tool: string, params: JsonObject): 'task' | 'direct';
  /** The retention the call asked for (2025-11-25 `params.task.ttl`), before the server's clamp. */
  requestedTtlMs(params: JsonObject): number | undefined;
  /** Who owns a task this request starts or reads (principal, session, or `anonymous`). */
  owner(ctx: Pick<RequestContext, 'info' | 'sessionId'>): string;
  /** The answer to the request that started `record`. */
  created(record: TaskRecord): JsonObject;
  /**
   * After `record` was handed out: start whatever status notifications this era sends on the
   * connection that made it (2025-11-25: `notifications/tasks/status`; 2026-07-28: none here,
   * they go on a `subscriptions/listen` that names the task).
   */
  announce(record: TaskRecord, tasks: TaskManager): void;
  /**
   * Serve a `tasks/*` request; `-32601` for a method the era does not have. `ctx` is the request's
   * own context (2025-11-25 `tasks/result` sends the task's questions as nested requests on it).
   */
  serve(method: string, params: JsonObject, ctx: RequestContext, tasks: TaskManager): Promise<JsonObject>;
}

/**
 * An era without tasks (the legacy era until its 2025-11-25 format lands): every call is direct,
 * `tasks/*` do not exist.
 *
 * @example
 * NO_TASK_WIRE.mode('required', 'render'); // 'direct'
 */
export const NO_TASK_WIRE: TaskWire = Object.freeze({
  format: 'legacy' as const,
  mode: () => 'direct' as const,
  requestedTtlMs: () => undefined,
  owner: () => 'anonymous',
  created: (): JsonObject => {
    throw methodNotFound('tasks');
  },
  announce: () => undefined,
  serve: (method: string): Promise<JsonObject> => Promise.reject(methodNotFound(method)),
});

/**
 * The `taskId` of a `tasks/*` request, the same rule in every format (`-32602` unless a
 * non-empty string).
 *
 * @example
 * taskIdOf({ taskId: 'abc' }); // 'abc'
 */
export function taskIdOf(params: JsonObject): string {
  const id = params.taskId;
  if (typeof id !== 'string' || id === '')
    throw new McpError(ErrorCode.InvalidParams, 'taskId must be a non-empty string');
  return id;
}
