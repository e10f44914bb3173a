/**
 * The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663) on the wire:
 * negotiated per request in `_meta` client capabilities; a `tools/call` of a tool that supports
 * tasks becomes a flat `CreateTaskResult` (`resultType: "task"`); `tasks/get`, `tasks/update`
 * and `tasks/cancel` exist only for requests that declared the extension (`-32021` otherwise,
 * before any lookup). `tasks/result` and `tasks/list` do not exist in this format (modern-era.ts
 * answers them `-32601`).
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import type { ClientCapabilities } from '../../core/types/capabilities.js';
import { methodNotFound } from '../method-not-found.js';
import type { TaskManager } from '../tasks/task-manager.js';
import type { TaskRecord } from '../tasks/task-store.js';
import { taskIdOf, type TaskSupport, type TaskWire } from '../tasks/task-wire.js';
import { principalOf } from './back-channel.js';
import { checkAnswer } from './input-answers.js';

/** The extension's identifier (capabilities, `-32021` data). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `resultType` of a `CreateTaskResult`. */
export const RESULT_TYPE_TASK = 'task';

/**
 * True when a request's client capabilities declare the tasks extension.
 *
 * @example
 * declaresTasks({ extensions: { 'io.modelcontextprotocol/tasks': {} } }); // true
 */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION]);
}

/**
 * The `-32021` a request gets for `what` without the tasks extension declared.
 *
 * @example
 * throw missingTasksExtension('tasks/get');
 */
export function missingTasksExtension(what: string): McpError {
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in this request's _meta client capabilities`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** The fields every task shows (`Task`): integer milliseconds, ISO times. */
function taskFields(record: TaskRecord): JsonObject {
  const task: JsonObject = {
    taskId: record.id,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: Math.round(record.ttlMs),
    pollIntervalMs: Math.round(record.pollIntervalMs),
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return task;
}

/**
 * `DetailedTask`: the fields, and what the status carries (open questions, result or error).
 *
 * @example
 * detailedTask(record); // { taskId, status: 'completed', ..., result: { content: [...] } }
 */
export function detailedTask(record: TaskRecord): JsonObject {
  const task = taskFields(record);
  if (record.status === 'input_required') task.inputRequests = { ...record.inputRequests };
  if (record.status === 'completed' && record.result !== undefined) task.result = record.result;
  if (record.status === 'failed')
    task.error = record.error ?? { code: ErrorCode.InternalError, message: 'The task failed' };
  return task;
}

/** `tasks/update`: the answers to questions still open, each checked; others ignored unread. */
async function update(
  tasks: TaskManager,
  id: string,
  owner: string,
  params: JsonObject,
): Promise<JsonObject> {
  const responses = params.inputResponses;
  if (!isJsonObject(responses))
    throw new McpError(ErrorCode.InvalidParams, 'tasks/update: inputResponses must be an object');
  const record = await tasks.get(id, owner);
  const open = record.inputRequests ?? {};
  const accepted: { [key: string]: JsonObject } = {};
  for (const [key, value] of Object.entries(responses)) {
    const question = Object.hasOwn(open, key) ? open[key] : undefined;
    // Keys not outstanding (never asked, answered, unknown) are ignored, malformed or not (SEP-2663).
    if (question === undefined) continue;
    if (!isJsonObject(value))
      throw new McpError(ErrorCode.InvalidParams, `inputResponses["${key}"] must be an object`);
    checkAnswer(question.method, key, value);
    accepted[key] = value;
  }
  if (Object.keys(accepted).length > 0) await tasks.answer(id, owner, accepted);
  return { resultType: 'complete' };
}

/**
 * The 2026-07-28 task wire of one request (see the file comment).
 *
 * @example
 * const wire = modernTaskWire(request.clientCapabilities);
 * wire.mode('required', 'render'); // 'task', or -32021 when the request did not declare the extension
 */
export function modernTaskWire(capabilities: ClientCapabilities): TaskWire {
  const declared = declaresTasks(capabilities);
  return {
    format: 'modern',
    mode(support: TaskSupport, tool: string): 'task' | 'direct' {
      if (support === 'forbidden') return 'direct';
      if (declared) return 'task';
      if (support === 'required') throw missingTasksExtension(`Tool "${tool}" runs only as a task: it`);
      return 'direct';
    },
    // No session in 2026-07-28: without authentication the unguessable id is the capability.
    requestedTtlMs: () => undefined,
    owner: (ctx: Pick<RequestContext, 'info'>) => principalOf(ctx.info?.authInfo) ?? 'anonymous',
    created: (record: TaskRecord): JsonObject => ({ resultType: RESULT_TYPE_TASK, ...taskFields(record) }),
    // A connection of 2026-07-28 has no session to notify: status goes on a listen (serve-listen.ts).
    announce: () => undefined,
    async serve(method, params, ctx, tasks): Promise<JsonObject> {
      if (method !== 'tasks/get' && method !== 'tasks/update' && method !== 'tasks/cancel')
        throw methodNotFound(method);
      // Gated before any lookup: a non-declaring client learns nothing about any id.
      if (!declared) throw missingTasksExtension(method);
      const id = taskIdOf(params);
      const owner = principalOf(ctx.info?.authInfo) ?? 'anonymous';
      if (method === 'tasks/get')
        return { ...detailedTask(await tasks.get(id, owner)), resultType: 'complete' };
      if (method === 'tasks/update') return update(tasks, id, owner, params);
      await tasks.cancel(id, owner);
      return { resultType: 'complete' };
    },
  };
}
