/**
 * `McpClient`: the high-level MCP client. Every client→server method with typed results,
 * pagination helpers, output-schema validation of tool results, and (from {@link McpClientBase})
 * the sampling/elicitation/roots handlers and notification events.
 */
import type { JsonObject } from '../core/jsonrpc.js';
import type { Transport } from '../core/transport.js';
import type { Implementation, PaginatedParams } from '../core/types/common.js';
import type { CompleteParams, CompleteResult } from '../core/types/completion.js';
import type { LoggingLevel } from '../core/types/logging.js';
import type { GetPromptResult, ListPromptsResult, Prompt } from '../core/types/prompts.js';
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '../core/types/resources.js';
import type { ListToolsResult, Tool } from '../core/types/tools.js';
import type { CallOptions, CallToolOptions, TypedCallToolResult } from './call-options.js';
import { assertNotRemoved, refusingListenHost } from './modern/removed-methods.js';
import { McpClientBase } from './mcp-client-base.js';
import type { McpClientConnectOptions } from './mcp-client-options.js';
import { collect, pageOptions, walkList, type PaginateOptions } from './pagination.js';
import { checkCompleteResult, requireArray } from './result-checks.js';
import { callToolChecked, listToolsPage, type ToolCallHost } from './tool-calls.js';
import type { CallToolOutputOptions, ValidatedCallToolResult } from './tool-output.js';
import type { StandardSchema } from '../core/schema/standard-schema.js';
import { listen, type ListenOptions, type Subscription } from './subscriptions.js';
import type { SubscriptionFilter } from '../core/types/subscriptions.js';
import {
  cancelTask,
  getTask,
  listTasksPage,
  resumeTask,
  startToolTask,
  type TaskFollowOptions,
  type TaskListPage,
  type ToolTaskOptions,
} from './tasks/client-tasks.js';
import type { TaskInfo } from './tasks/task-info.js';
import type { ToolTask } from './tasks/tool-task.js';

export type { CallOptions, CallToolOptions, TypedCallToolResult } from './call-options.js';
export type { McpClientConnectOptions } from './mcp-client-options.js';

const DEFAULT_INFO: Implementation = { name: 'keel-client', version: '0.1.0' };

/**
 * The high-level MCP client.
 *
 * @example
 * const client = await McpClient.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * for await (const tool of client.tools()) console.log(tool.name);
 * const result = await client.callTool('forecast', { city: 'Oslo' }, { timeoutMs: 30_000 });
 * await client.close();
 */
export class McpClient extends McpClientBase {
  /** Create a client, connect it, and return it once the handshake is done. */
  static async connect(transport: Transport, options: McpClientConnectOptions = {}): Promise<McpClient> {
    const { info, signal, timeoutMs, ...clientOptions } = options;
    const client = new McpClient(info ?? DEFAULT_INFO, clientOptions);
    await client.connect(transport, pageOptions({ signal, timeoutMs }));
    return client;
  }

  /**
   * Any request, for methods this class has no helper for. In the modern era a method 2026-07-28
   * removed (`ping`, `logging/setLevel`, `resources/subscribe`, ...) rejects with
   * `RemovedInModernEraError` before anything is sent (`lowLevel.request` sends anything).
   */
  async request(method: string, params?: JsonObject, options?: CallOptions): Promise<JsonObject> {
    assertNotRemoved(this.era, method);
    return this.lowLevel.request(method, params, options);
  }

  /**
   * A liveness round trip. 2026-07-28 removed `ping`: in the modern era this sends
   * `server/discover` (every modern server must answer it) instead.
   */
  async ping(options?: CallOptions): Promise<void> {
    if (this.era === 'modern') await this.lowLevel.request('server/discover', {}, options);
    else await this.lowLevel.request('ping', undefined, options);
  }

  // ---- tools

  /**
   * One page of `tools/list`. Output schemas are cached for {@link callTool} validation. In the
   * modern era, tools with invalid `x-mcp-header` annotations are left out (one warning each,
   * through the connection logger) and the mirrored arguments of the others are remembered.
   */
  async listTools(params: PaginatedParams = {}, options?: CallOptions): Promise<ListToolsResult> {
    return listToolsPage(this.toolCalls, params, options);
  }

  /** Every tool, page by page. */
  tools(options: PaginateOptions = {}): AsyncGenerator<Tool, void, undefined> {
    return walkList((params, page) => this.listTools(params, page), 'tools', options);
  }

  listAllTools(options?: PaginateOptions): Promise<Tool[]> {
    return collect(this.tools(options));
  }

  /**
   * Call a tool. A tool execution error comes back as a result with `isError: true`; a protocol
   * error rejects with `McpError`; a result that breaks the tool's `outputSchema` rejects with
   * `ToolOutputValidationError`. In the modern era the tool's `x-mcp-header` arguments go as
   * `Mcp-Param-*` headers, `input_required` rounds are answered by the client's handlers, and a
   * `-32020` re-lists the tools and retries once.
   *
   * With `{ output: schema }` (any Standard Schema: zod 4, valibot, arktype) `structuredContent`
   * is validated by that schema and typed by its output; a mismatch rejects with
   * `ToolOutputValidationError` naming the tool and the first issue. A tool error
   * (`isError: true`) is returned unvalidated: check `isError` first.
   *
   * @example
   * const Forecast = z.object({ tempC: z.number() });
   * const result = await client.callTool('forecast', { city: 'Oslo' }, { output: Forecast });
   * if (!result.isError) console.log(result.structuredContent.tempC); // number
   */
  async callTool<O extends StandardSchema<any, any>>(
    name: string,
    args: JsonObject | undefined,
    options: CallToolOutputOptions<O>,
  ): Promise<ValidatedCallToolResult<O>>;
  async callTool<S extends JsonObject = JsonObject>(
    name: string,
    args?: JsonObject,
    options?: CallToolOptions,
  ): Promise<TypedCallToolResult<S>>;
  async callTool(
    name: string,
    args?: JsonObject,
    options: CallToolOptions & { output?: StandardSchema } = {},
  ): Promise<TypedCallToolResult | ValidatedCallToolResult<StandardSchema>> {
    return callToolChecked(this.toolCalls, name, args, options);
  }

  /** The parts of this client the tool calls use (tool-calls.ts). */
  private get toolCalls(): ToolCallHost {
    return {
      lowLevel: this.lowLevel,
      toolHeaders: this.toolHeaders,
      outputSchemas: this.outputSchemas,
      logger: this.options.connection?.logger,
      validateOutput: this.options.validateToolOutput,
      tracker: this.taskTracker,
      taskSupport: this.taskSupport,
      cached: (method, params, options) => this.cached(method, params, options),
      // The server said our tool list is stale (-32020): a cached page would be too.
      refresh: ({ signal, timeoutMs }) =>
        collect(this.tools(pageOptions({ signal, timeoutMs, cache: 'refresh' }))).then(() => undefined),
    };
  }

  // ---- tasks

  /**
   * Start a tool call as a task and get its handle at once; the handle polls the task (at the
   * server's poll interval), answers its questions with this client's elicitation, sampling and
   * roots handlers, and settles `result()` when it ends. Both eras: 2025-11-25 (`params.task`,
   * `tasks/result`) and 2026-07-28 (the tasks extension, `tasks/update`). Aborting `signal` or
   * `task.cancel()` sends `tasks/cancel`; closing the client stops every handle.
   * A server that does not run tasks: {@link TasksNotSupportedError}, nothing sent. A 2026-07-28
   * server may answer at once instead: the handle is then already `completed` (`taskId` is `''`).
   *
   * @example
   * const task = await client.startToolTask('render', { scene: 'intro' }, { ttlMs: 3_600_000 });
   * for await (const t of task.statuses()) console.error(t.status, t.statusMessage ?? '');
   * const result = await task.result();
   */
  async startToolTask<S extends JsonObject = JsonObject>(
    name: string,
    args?: JsonObject,
    options?: ToolTaskOptions,
  ): Promise<ToolTask<S>> {
    return startToolTask<S>(this.toolCalls, name, args, options);
  }

  /**
   * A handle on a task started earlier (by this client or over another connection), by id.
   *
   * @example
   * const task = await client.resumeTask(savedId);
   * console.log((await task.result()).content);
   */
  async resumeTask<S extends JsonObject = JsonObject>(
    taskId: string,
    options?: TaskFollowOptions,
  ): Promise<ToolTask<S>> {
    return resumeTask<S>(this.toolCalls, taskId, options);
  }

  /**
   * Wait for a task's result: follows it to its end (input on the way included).
   *
   * @example
   * const result = await client.taskResult(savedId, { signal });
   */
  async taskResult<S extends JsonObject = JsonObject>(
    taskId: string,
    options?: TaskFollowOptions,
  ): Promise<TypedCallToolResult<S>> {
    return (await resumeTask<S>(this.toolCalls, taskId, options)).result();
  }

  /**
   * `tasks/get`: a task as the server shows it now.
   *
   * @example
   * const { status, statusMessage } = await client.getTask(id);
   */
  async getTask(taskId: string, options?: CallOptions): Promise<TaskInfo> {
    return getTask(this.toolCalls, taskId, options);
  }

  /**
   * `tasks/cancel` of a task by id (a handle's `cancel()` also stops its polling).
   *
   * @example
   * await client.cancelTask(id);
   */
  async cancelTask(taskId: string, options?: CallOptions): Promise<void> {
    return cancelTask(this.toolCalls, taskId, options);
  }

  /**
   * One page of `tasks/list`. 2025-11-25 only: 2026-07-28 has no task list (it rejects with
   * `RemovedInModernEraError`, nothing sent).
   *
   * @example
   * const { tasks, nextCursor } = await client.listTasks();
   */
  async listTasks(
    params: { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<TaskListPage> {
    return listTasksPage(this.toolCalls, params, options);
  }

  /**
   * Every task the server lists for this client, page by page (2025-11-25 only).
   *
   * @example
   * for await (const task of client.tasks()) console.log(task.taskId, task.status);
   */
  tasks(options: PaginateOptions = {}): AsyncGenerator<TaskInfo, void, undefined> {
    return walkList((params, page) => this.listTasks(params, page), 'tasks', options);
  }

  // ---- resources

  async listResources(params: PaginatedParams = {}, options?: CallOptions): Promise<ListResourcesResult> {
    return this.listPage('resources/list', 'resources', params, options);
  }

  resources(options: PaginateOptions = {}): AsyncGenerator<Resource, void, undefined> {
    return walkList((params, page) => this.listResources(params, page), 'resources', options);
  }

  listAllResources(options?: PaginateOptions): Promise<Resource[]> {
    return collect(this.resources(options));
  }

  async listResourceTemplates(
    params: PaginatedParams = {},
    options?: CallOptions,
  ): Promise<ListResourceTemplatesResult> {
    return this.listPage('resources/templates/list', 'resourceTemplates', params, options);
  }

  resourceTemplates(options: PaginateOptions = {}): AsyncGenerator<ResourceTemplate, void, undefined> {
    return walkList((params, page) => this.listResourceTemplates(params, page), 'resourceTemplates', options);
  }

  listAllResourceTemplates(options?: PaginateOptions): Promise<ResourceTemplate[]> {
    return collect(this.resourceTemplates(options));
  }

  async readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return requireArray(await this.cached('resources/read', { uri }, options), 'contents', 'resources/read');
  }

  /**
   * Ask for `notifications/resources/updated` about `uri` (listen with `on('resourceUpdated')`).
   * Legacy era only: in the modern era it rejects with `RemovedInModernEraError` before anything
   * is sent; use {@link listen} with `{ resourceSubscriptions: [uri] }`.
   */
  async subscribeResource(uri: string, options?: CallOptions): Promise<void> {
    assertNotRemoved(this.era, 'resources/subscribe');
    await this.lowLevel.request('resources/subscribe', { uri }, options);
  }

  /** Legacy era only (see {@link subscribeResource}); modern: close the listen's subscription. */
  async unsubscribeResource(uri: string, options?: CallOptions): Promise<void> {
    assertNotRemoved(this.era, 'resources/unsubscribe');
    await this.lowLevel.request('resources/unsubscribe', { uri }, options);
  }

  /**
   * 2026-07-28: open a `subscriptions/listen` for the notifications in `filter`. Iterate the
   * returned {@link Subscription}; `close()` cancels it; `ended` tells a graceful end from a lost one.
   * In the legacy era nothing is sent: the subscription ends `lost` with `ModernOnlyError`.
   *
   * @example
   * const subscription = client.listen({ toolsListChanged: true });
   * for await (const note of subscription) console.log(note.method);
   */
  listen(filter: SubscriptionFilter, options?: ListenOptions): Subscription {
    if (this.era !== 'legacy') return listen(this.lowLevel, filter, options);
    // A legacy server has no subscriptions/listen: end it `lost` at once, nothing sent.
    return listen(refusingListenHost(this.lowLevel.connection), filter, options);
  }

  // ---- prompts

  async listPrompts(params: PaginatedParams = {}, options?: CallOptions): Promise<ListPromptsResult> {
    return this.listPage('prompts/list', 'prompts', params, options);
  }

  prompts(options: PaginateOptions = {}): AsyncGenerator<Prompt, void, undefined> {
    return walkList((params, page) => this.listPrompts(params, page), 'prompts', options);
  }

  listAllPrompts(options?: PaginateOptions): Promise<Prompt[]> {
    return collect(this.prompts(options));
  }

  async getPrompt(
    name: string,
    args?: { [key: string]: string },
    options?: CallOptions,
  ): Promise<GetPromptResult> {
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    return requireArray(
      await this.lowLevel.request('prompts/get', params, options),
      'messages',
      'prompts/get',
    );
  }

  // ---- completion and logging

  /**
   * @example
   * const { completion } = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } });
   */
  async complete(params: CompleteParams, options?: CallOptions): Promise<CompleteResult> {
    return checkCompleteResult(await this.lowLevel.request('completion/complete', params, options));
  }

  /**
   * Ask the server to send `notifications/message` at `level` and above (listen with `on('log')`).
   * In the modern era (no `logging/setLevel`) the level is remembered and sent on every later
   * request as `io.modelcontextprotocol/logLevel`; nothing is sent now.
   */
  async setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    if (this.era === 'modern') this.lowLevel.logLevel = level;
    else await this.lowLevel.request('logging/setLevel', { level }, options);
  }

  /** One page of a list method, refused unless it carries its `key` array (tools: see listToolsPage). */
  private async listPage<Page>(
    method: string,
    key: string,
    params: PaginatedParams,
    options: CallOptions | undefined,
  ): Promise<Page> {
    return requireArray<Page>(await this.cached(method, params, options), key, method);
  }
}
