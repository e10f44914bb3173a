/**
 * Tasks in the 2025-11-25 format (SEP-1686, "experimental tasks") on the wire, from the same task
 * manager and store as 2026-07-28: `tools/call` with `params.task` answers a nested
 * `CreateTaskResult` (`{ task }`); `tasks/get`, `tasks/list`, `tasks/cancel` answer flat tasks
 * (`ttl`, `pollInterval`); `tasks/result` waits for the end and returns what the call would have,
 * asking the task's open questions on its own request meanwhile (legacy-task-result.ts).
 *
 * Ownership: the authenticated principal when the request has one; otherwise the session that
 * made the task for listing, while any caller holding the (128-bit random) id may get, cancel
 * and fetch it: a task outlives its connection (docs/tasks.md, "2025-11-25 format").
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { principalOf } from '../modern/back-channel.js';
import { isTerminal } from '../tasks/memory-task-store.js';
import { ANY_SESSION, SESSION_OWNER_PREFIX, type TaskManager } from '../tasks/task-manager.js';
import type { TaskRecord } from '../tasks/task-store.js';
import { taskIdOf, type TaskSupport, type TaskWire } from '../tasks/task-wire.js';
import type { ServerSession } from '../server-session.js';
import { methodNotFound } from '../method-not-found.js';
import { awaitTaskResult } from './legacy-task-result.js';

/** `tasks/list` page size. */
const LIST_PAGE = 50;

/**
 * A 2025-11-25 `Task` (flat): the retention and poll interval in ms under their 2025 names.
 *
 * @example
 * legacyTask(record); // { taskId, status: 'working', createdAt, lastUpdatedAt, ttl: 3600000, pollInterval: 1000 }
 */
export function legacyTask(record: TaskRecord): JsonObject {
  const task: JsonObject = {
    taskId: record.id,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return task;
}

/** `params.task` of a call: absent, or `{ ttl?: number >= 0 }` (else `-32602`). */
function taskParam(params: JsonObject): JsonObject | undefined {
  const task = params.task;
  if (task === undefined) return undefined;
  if (!isJsonObject(task)) throw new McpError(ErrorCode.InvalidParams, 'tools/call: task must be an object');
  const ttl = task.ttl;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0))
    throw new McpError(ErrorCode.InvalidParams, 'tools/call: task.ttl must be a non-negative number of ms');
  return task;
}

/**
 * The 2025-11-25 task wire of one legacy session (made when a task path needs it, never on a
 * plain call).
 *
 * @example
 * const wire = new LegacyTaskWire(session);
 * wire.mode('required', 'render', { name: 'render' }); // throws -32601: the call needs params.task
 */
export class LegacyTaskWire implements TaskWire {
  constructor(private readonly session: ServerSession) {}

  /** The session's id (`ServerSession.id`, set on every transport). */
  private get sessionId(): string {
    return this.session.id;
  }

  get format(): 'legacy' {
    return 'legacy';
  }

  mode(support: TaskSupport, tool: string, params: JsonObject): 'task' | 'direct' {
    const task = taskParam(params);
    if (task === undefined) {
      // The spec's tool-level rule (MUST -32601) over its error table's -32600: see docs/tasks.md F1.
      if (support === 'required')
        throw new McpError(
          ErrorCode.MethodNotFound,
          `Tool "${tool}" runs only as a task (execution.taskSupport "required"): call it with params.task`,
        );
      return 'direct';
    }
    if (support === 'forbidden')
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Tool "${tool}" does not run as a task (execution.taskSupport "forbidden"): call it without params.task`,
      );
    return 'task';
  }

  requestedTtlMs(params: JsonObject): number | undefined {
    const ttl = taskParam(params)?.ttl;
    return typeof ttl === 'number' ? ttl : undefined;
  }

  /** Who the task belongs to: the principal, else this session. */
  owner(ctx: Pick<RequestContext, 'info'>): string {
    return principalOf(ctx.info?.authInfo) ?? `${SESSION_OWNER_PREFIX}${this.sessionId}`;
  }

  created(record: TaskRecord): JsonObject {
    return { task: legacyTask(record) };
  }

  /**
   * `notifications/tasks/status` (the full task) to the session that made the task, on each
   * change while its connection is open on this process. The spec makes them optional and tells
   * clients not to rely on them: a change made while the store's change feed was away is not
   * sent, and the first may reach the client just before the `CreateTaskResult`.
   */
  announce(record: TaskRecord, tasks: TaskManager): void {
    const session = this.session;
    const connection = session.connection;
    if (!connection.isOpen) return;
    const stop = tasks.follow(record.id, (task) => {
      // Checked per change rather than with an onClose per task: a long session runs many tasks.
      if (!connection.isOpen) return stop();
      // One that cannot be written (the connection just broke) is lost like any optional one.
      session.notify('notifications/tasks/status', legacyTask(task)).catch(() => undefined);
    });
  }

  async serve(
    method: string,
    params: JsonObject,
    ctx: RequestContext,
    tasks: TaskManager,
  ): Promise<JsonObject> {
    const principal = principalOf(ctx.info?.authInfo);
    if (method === 'tasks/list') {
      const cursor = params.cursor;
      if (cursor !== undefined && typeof cursor !== 'string')
        throw new McpError(ErrorCode.InvalidParams, 'tasks/list: cursor must be a string');
      const page = await tasks.list(
        principal ?? `${SESSION_OWNER_PREFIX}${this.sessionId}`,
        cursor,
        LIST_PAGE,
      );
      const result: JsonObject = { tasks: page.tasks.map(legacyTask) };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      return result;
    }
    if (method !== 'tasks/get' && method !== 'tasks/cancel' && method !== 'tasks/result')
      throw methodNotFound(method);
    const id = taskIdOf(params);
    // Without authentication the id is the capability (see the file comment).
    const owner = principal ?? ANY_SESSION;
    if (method === 'tasks/get') return legacyTask(await tasks.get(id, owner));
    if (method === 'tasks/result') return awaitTaskResult(tasks, id, owner, ctx);
    const before = await tasks.get(id, owner);
    if (!isTerminal(before.status)) {
      const after = await tasks.cancel(id, owner);
      // `cancelled` is stored before this answer; completion may have won the race.
      if (after.status === 'cancelled') return legacyTask(after);
      return refuseCancel(after);
    }
    return refuseCancel(before);
  }
}

function refuseCancel(record: TaskRecord): never {
  throw new McpError(
    ErrorCode.InvalidParams,
    `Cannot cancel task: already in terminal status '${record.status}'`,
  );
}
