/**
 * The 2026-07-28 task wire (the tasks extension, SEP-2663), client side: the extension is
 * declared in the `_meta` client capabilities of each task request; a `tools/call` may answer
 * `resultType: "task"` with a flat `CreateTaskResult`; `tasks/get` carries the questions
 * (`inputRequests`), the `result` or the `error`; answers go back with `tasks/update` (each key
 * once, however many polls repeat it); `tasks/cancel` is an empty ack. Over HTTP the transport
 * mirrors `taskId` in `Mcp-Name`.
 */
import type { RequestOptions } from '../../core/engine/outbound.js';
import { McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { MetaKey } from '../../core/types/modern.js';
import type { Client } from '../client.js';
import { ProtocolViolationError, TaskCancelledError, TasksNotSupportedError } from '../errors.js';
import { answerAll, type InputLoopHost } from '../modern/input-loop.js';
import { toModernCapabilities } from '../modern/request-meta.js';
import { callWithParamHeaders, type ToolHeaderMap } from '../modern/tool-headers.js';
import { objectAt, parseTask } from './task-info.js';
import type { ClientTaskWire, TaskChannel, TaskSnapshot, TaskStart, TaskStartRequest } from './task-wire.js';

/** The extension's identifier. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether the server advertised the tasks extension in `server/discover`. */
export function modernRunsTasks(client: Client): boolean {
  const extensions = client.serverCapabilities?.extensions;
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION]);
}

/**
 * The `_meta` of a request that declares the extension: the client's capabilities, plus it.
 *
 * @example
 * client.request('tasks/get', { taskId, _meta: declaringMeta(client) });
 */
export function declaringMeta(client: Client): JsonObject {
  const capabilities = toModernCapabilities(client.capabilities);
  const extensions = isJsonObject(capabilities.extensions) ? capabilities.extensions : {};
  return {
    [MetaKey.ClientCapabilities]: { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } },
  };
}

/** What the modern wire needs from its `McpClient`. */
export interface ModernTaskHost {
  readonly lowLevel: Client;
  readonly toolHeaders: ToolHeaderMap;
  refresh(options: RequestOptions): Promise<void>;
}

class ModernChannel implements TaskChannel {
  /** Input keys answered (or being answered): a key shows on every poll until the server applied it. */
  private readonly answered = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly meta: JsonObject,
    private readonly taskId: string,
  ) {}

  private send(method: string, extra: JsonObject, options: RequestOptions): Promise<JsonObject> {
    return this.client.request(method, { taskId: this.taskId, ...extra, _meta: this.meta }, options);
  }

  async get(options: RequestOptions): Promise<TaskSnapshot> {
    const raw = await this.send('tasks/get', {}, options);
    return { task: parseTask(raw, 'modern', 'tasks/get'), raw };
  }

  async cancel(options: RequestOptions): Promise<undefined> {
    await this.send('tasks/cancel', {}, options);
    return undefined;
  }

  async input(snapshot: TaskSnapshot, options: RequestOptions): Promise<void> {
    // A CreateTaskResult that is input_required already lists no questions: read the task.
    const { raw } = snapshot.raw.inputRequests === undefined ? await this.get(options) : snapshot;
    const requests = raw.inputRequests;
    if (!isJsonObject(requests))
      throw new ProtocolViolationError(
        `tasks/get: task ${this.taskId} is input_required without inputRequests`,
      );
    const open: JsonObject = {};
    for (const [key, request] of Object.entries(requests)) if (!this.answered.has(key)) open[key] = request;
    if (Object.keys(open).length === 0) return;
    for (const key of Object.keys(open)) this.answered.add(key);
    const client = this.client;
    const host: InputLoopHost = {
      send: () => Promise.reject(new Error('unused')),
      handler: (method) => client.requestHandler(method),
      maxRounds: 0,
    };
    const inputResponses = await answerAll(host, 'tasks/get', open, options.signal);
    await this.send('tasks/update', { inputResponses }, options);
  }

  async finish(snapshot: TaskSnapshot, options: RequestOptions): Promise<JsonObject> {
    const { task } = snapshot;
    if (task.status === 'cancelled') throw new TaskCancelledError(task.taskId);
    // A CreateTaskResult that is already final carries no result or error: read the task.
    const { raw } =
      snapshot.raw.result === undefined && snapshot.raw.error === undefined
        ? await this.get(options)
        : snapshot;
    if (task.status === 'failed') {
      const error = objectAt(raw, 'error');
      if (error === undefined || typeof error.code !== 'number' || typeof error.message !== 'string')
        throw new ProtocolViolationError(
          `tasks/get: task ${task.taskId} failed without an error { code, message }`,
        );
      throw new McpError(error.code, error.message, error.data);
    }
    const result = objectAt(raw, 'result');
    if (result === undefined)
      throw new ProtocolViolationError(`tasks/get: task ${task.taskId} completed without a result`);
    return result;
  }
}

/**
 * The 2026-07-28 wire for `host` (see the file comment).
 *
 * @example
 * const wire = modernTaskWire({ lowLevel, toolHeaders, refresh });
 */
export function modernTaskWire(host: ModernTaskHost): ClientTaskWire {
  const client = host.lowLevel;
  const meta = declaringMeta(client);
  return {
    format: 'modern',
    assertSupported(what: string): void {
      if (modernRunsTasks(client)) return;
      throw new TasksNotSupportedError(
        `${what}: the server does not run tasks (server/discover lists no ${TASKS_EXTENSION} extension)`,
      );
    },
    async start(request: TaskStartRequest, options: RequestOptions): Promise<TaskStart> {
      const params: JsonObject = { name: request.name, _meta: { ...request.meta, ...meta } };
      if (request.args !== undefined) params.arguments = request.args;
      const raw = await callWithParamHeaders(
        host.toolHeaders,
        (withHeaders) => client.request('tools/call', params, withHeaders),
        () => host.refresh(options),
        request.name,
        request.args,
        options,
      );
      if (raw.resultType !== 'task') return { result: raw };
      return { task: { task: parseTask(raw, 'modern', `tools/call ${request.name}`), raw } };
    },
    channel: (taskId) => new ModernChannel(client, meta, taskId),
  };
}
