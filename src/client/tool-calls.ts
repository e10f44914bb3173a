/**
 * The work behind `McpClient.listTools` and `McpClient.callTool`: the tool list feeds the
 * output-schema cache (both eras) and, in 2026-07-28, the `x-mcp-header` map; a call sends the
 * mirrored `Mcp-Param-*` headers (modern), checks the result's shape and validates
 * `structuredContent` against the cached `outputSchema`.
 */
import { ErrorCode, McpError } from '../core/errors.js';
import { isJsonObject, type JsonObject } from '../core/jsonrpc.js';
import type { StandardSchema } from '../core/schema/standard-schema.js';
import type { PaginatedParams } from '../core/types/common.js';
import type { ListToolsResult } from '../core/types/tools.js';
import type { CallOptions, CallToolOptions, TypedCallToolResult } from './call-options.js';
import { callWithParamHeaders } from './modern/tool-headers.js';
import { callToolAsTask, type TaskHost } from './tasks/client-tasks.js';
import { legacyRunsToolTasks } from './tasks/legacy-task-wire.js';
import { modernRunsTasks, TASKS_EXTENSION } from './tasks/modern-task-wire.js';
import { checkCallToolResult, requireArray } from './result-checks.js';
import { assertOutputSchema, parseToolOutput } from './tool-output.js';

/**
 * What the tool calls need from their client (an `McpClient` hands its own parts).
 *
 * @example
 * const host: ToolCallHost = { lowLevel, toolHeaders, outputSchemas, logger: undefined, validateOutput: true, refresh: async () => {} };
 */
export interface ToolCallHost extends TaskHost {
  /** The client's `validateToolOutput` (a call's `validateOutput` wins). */
  readonly validateOutput: boolean | undefined;
  /** A request whose result may come from the client's result cache (`tools/list`). */
  cached(method: string, params: JsonObject, options: CallOptions | undefined): Promise<JsonObject>;
  /** Walk every page of `tools/list` (refreshes the caches). */
  refresh(options: CallOptions): Promise<void>;
}

/**
 * One page of `tools/list`, with the caches updated from it.
 *
 * @example
 * const page = await listToolsPage(host, { cursor }, { timeoutMs: 5_000 });
 */
export async function listToolsPage(
  host: ToolCallHost,
  params: PaginatedParams,
  options: CallOptions | undefined,
): Promise<ListToolsResult> {
  const result = requireArray<ListToolsResult>(
    await host.cached('tools/list', params, options),
    'tools',
    'tools/list',
  );
  const fresh = params.cursor === undefined;
  if (host.lowLevel.era === 'modern') {
    const logger = host.logger;
    result.tools = host.toolHeaders.admit(result.tools, fresh, (message) => logger?.error(message));
  }
  host.outputSchemas.remember(result.tools, fresh);
  host.taskSupport.remember(result.tools, fresh);
  return result;
}

/**
 * `tools/call`, its result checked (shape, then `outputSchema` unless switched off, then the
 * caller's `output` Standard Schema if given).
 *
 * @example
 * const result = await callToolChecked(host, 'forecast', { city: 'Oslo' }, { timeoutMs: 30_000 });
 */
export async function callToolChecked<S extends JsonObject>(
  host: ToolCallHost,
  name: string,
  args: JsonObject | undefined,
  options: CallToolOptions & { output?: StandardSchema },
): Promise<TypedCallToolResult<S>> {
  const { validateOutput, meta, output, ...requestOptions } = options;
  // A wrong `output` is the caller's mistake: said before anything is sent.
  if (output !== undefined) assertOutputSchema(name, output);
  const params: JsonObject = { name };
  if (args !== undefined) params.arguments = args;
  if (meta !== undefined) params._meta = meta;
  let raw: JsonObject;
  if (host.taskSupport.isRequired(name)) raw = await callToolAsTask(host, name, args, meta, requestOptions);
  else {
    try {
      raw = await plainCall(host, name, args, params, requestOptions);
    } catch (error) {
      // A tool that runs only as a task: learnt once, then run as one (the caller need not know).
      if (!mustRunAsTask(host, name, error)) throw error;
      host.taskSupport.learnRequired(name);
      raw = await callToolAsTask(host, name, args, meta, requestOptions);
    }
  }
  const result = checkCallToolResult<TypedCallToolResult<S>>(raw, name);
  if (validateOutput ?? host.validateOutput ?? true) await host.outputSchemas.check(name, result);
  if (output === undefined) return result;
  return (await parseToolOutput(name, result, output)) as TypedCallToolResult<S>;
}

function plainCall(
  host: ToolCallHost,
  name: string,
  args: JsonObject | undefined,
  params: JsonObject,
  options: CallOptions,
): Promise<JsonObject> {
  if (host.lowLevel.era !== 'modern') return host.lowLevel.request('tools/call', params, options);
  return callWithParamHeaders(
    host.toolHeaders,
    (withHeaders) => host.lowLevel.request('tools/call', params, withHeaders),
    () => host.refresh(options),
    name,
    args,
    options,
  );
}

/**
 * The server refused a plain call because the tool runs only as a task: 2026-07-28 `-32021`
 * naming the tasks extension; 2025-11-25 `-32601` from a server that runs tool tasks, for a
 * tool not listed as forbidden or optional.
 */
function mustRunAsTask(host: ToolCallHost, name: string, error: unknown): boolean {
  if (!(error instanceof McpError)) return false;
  if (host.lowLevel.era === 'modern') {
    if (error.code !== ErrorCode.MissingRequiredClientCapability || !modernRunsTasks(host.lowLevel))
      return false;
    const data = isJsonObject(error.data) ? error.data : undefined;
    const required = data && isJsonObject(data.requiredCapabilities) ? data.requiredCapabilities : undefined;
    const extensions = required && isJsonObject(required.extensions) ? required.extensions : undefined;
    return extensions !== undefined && TASKS_EXTENSION in extensions;
  }
  return (
    error.code === ErrorCode.MethodNotFound &&
    legacyRunsToolTasks(host.lowLevel) &&
    host.taskSupport.mayRequire(name)
  );
}
