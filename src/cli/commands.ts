/**
 * What each command does once connected: list, call, read, prompt, ping.
 */
import type { McpClient, TaskInfo, TypedCallToolResult } from '../client/index.js';
import type { JsonObject } from '../core/jsonrpc.js';
import {
  formatPrompt,
  formatPromptResult,
  formatReadResult,
  formatResource,
  formatTool,
  formatToolResult,
} from './format.js';
import type { CommandContext } from './session.js';
import { safeLine, safeName } from './safe-text.js';
import { missingRequired, parseArguments } from './tool-arguments.js';
import { CliFailure, EXIT, UsageError } from './usage.js';

/** Options of the commands that print results. */
export interface OutputOptions {
  json?: boolean;
  args?: string;
  /** `keel call --task`: run the call as a task (for a tool whose taskSupport is optional). */
  task?: boolean;
}

/**
 * `keel tools`: name, title, description, arguments.
 *
 * @example
 * await listTools(client, ctx, { json: false });
 */
export async function listTools(
  client: McpClient,
  ctx: CommandContext,
  options: OutputOptions,
): Promise<number> {
  const tools = await client.listAllTools(ctx.request);
  if (options.json) ctx.json({ tools });
  else ctx.out(tools.map((tool) => formatTool(tool, ctx.columns)).join('\n') || '(no tools)');
  return EXIT.ok;
}

/**
 * `keel resources`: resources, then resource templates.
 *
 * @example
 * await listResources(client, ctx, {});
 */
export async function listResources(
  client: McpClient,
  ctx: CommandContext,
  options: OutputOptions,
): Promise<number> {
  const resources = await client.listAllResources(ctx.request);
  const resourceTemplates = await client.listAllResourceTemplates(ctx.request);
  if (options.json) ctx.json({ resources, resourceTemplates });
  else
    ctx.out(
      [...resources, ...resourceTemplates].map((r) => formatResource(r, ctx.columns)).join('\n') ||
        '(no resources)',
    );
  return EXIT.ok;
}

/**
 * `keel prompts`.
 *
 * @example
 * await listPrompts(client, ctx, {});
 */
export async function listPrompts(
  client: McpClient,
  ctx: CommandContext,
  options: OutputOptions,
): Promise<number> {
  const prompts = await client.listAllPrompts(ctx.request);
  if (options.json) ctx.json({ prompts });
  else ctx.out(prompts.map((p) => formatPrompt(p, ctx.columns)).join('\n') || '(no prompts)');
  return EXIT.ok;
}

/**
 * `keel call <tool> key=value…`: arguments typed from the tool's input schema, and the schema's
 * required ones checked here (a {@link UsageError} naming the missing ones; nothing is sent); an
 * `isError` result goes to stderr (stdout with `--json`) and exits 1.
 *
 * @example
 * await callTool(client, ctx, 'echo', ['text=hi'], {});
 */
export async function callTool(
  client: McpClient,
  ctx: CommandContext,
  name: string,
  pairs: readonly string[],
  options: OutputOptions,
): Promise<number> {
  const tools = await client.listAllTools(ctx.request);
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    throw new CliFailure(`${ctx.describe} has no tool "${name}" (keel tools lists them)`);
  }
  const args = parseArguments(pairs, tool.inputSchema, options.args);
  const missing = missingRequired(tool.inputSchema, args);
  if (missing.length > 0) {
    const names = missing.map((key) => safeName(key)).join(', ');
    throw new UsageError(
      `${name}: missing required argument${missing.length > 1 ? 's' : ''} ${names} (keel tools lists the arguments)`,
    );
  }
  const asTask = options.task === true || tool.execution?.taskSupport === 'required';
  const result = asTask
    ? await callAsTask(client, ctx, name, args)
    : await client.callTool(name, args, ctx.request);
  const failed = result.isError === true;
  if (options.json) ctx.json(result);
  else if (failed) ctx.err(`keel: tool "${name}" failed:\n${formatToolResult(result)}`);
  else ctx.out(formatToolResult(result));
  return failed ? EXIT.failure : EXIT.ok;
}

/**
 * A call run as a task: its status shown live on stderr; Ctrl+C (the request's signal) cancels
 * the task on the server (`tasks/cancel`) and says so.
 */
async function callAsTask(
  client: McpClient,
  ctx: CommandContext,
  name: string,
  args: JsonObject,
): Promise<TypedCallToolResult> {
  const { signal, timeoutMs } = ctx.request;
  const task = await client.startToolTask(name, args, {
    signal,
    timeoutMs,
    onStatus: (t) => ctx.taskStatus(taskLine(t)),
  });
  try {
    return await task.result();
  } catch (error) {
    if (signal.aborted && task.taskId !== '') {
      // The abort already sent tasks/cancel: wait for its answer, then say what happened.
      const acknowledged = await task.cancel().then(
        () => true,
        () => false,
      );
      ctx.err(
        acknowledged
          ? `keel: cancelled task ${task.taskId}`
          : `keel: could not confirm the cancel of task ${task.taskId}`,
      );
    }
    throw error;
  }
}

/** `task <id> <status>[: <message>]`. */
function taskLine(task: TaskInfo): string {
  const id = task.taskId === '' ? '(answered at once)' : safeLine(task.taskId);
  const message = task.statusMessage === undefined ? '' : `: ${safeLine(task.statusMessage)}`;
  return `task ${id} ${task.status}${message}`;
}

/**
 * `keel read <uri>`.
 *
 * @example
 * await readResource(client, ctx, 'file:///notes.txt', {});
 */
export async function readResource(
  client: McpClient,
  ctx: CommandContext,
  uri: string,
  options: OutputOptions,
): Promise<number> {
  const result = await client.readResource(uri, ctx.request);
  if (options.json) ctx.json(result);
  else ctx.out(formatReadResult(result));
  return EXIT.ok;
}

/**
 * `keel prompt <name> key=value…` (prompt arguments are strings; `key:=json` is sent as its text).
 *
 * @example
 * await getPrompt(client, ctx, 'plan', ['city=Oslo'], {});
 */
export async function getPrompt(
  client: McpClient,
  ctx: CommandContext,
  name: string,
  pairs: readonly string[],
  options: OutputOptions,
): Promise<number> {
  const parsed = parseArguments(pairs, undefined, options.args);
  const args = Object.fromEntries(
    Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const result = await client.getPrompt(name, args, ctx.request);
  if (options.json) ctx.json(result);
  else ctx.out(formatPromptResult(result));
  return EXIT.ok;
}

/**
 * `keel ping`: one round trip (`server/discover` in the modern era).
 *
 * @example
 * await ping(client, ctx, {});
 */
export async function ping(client: McpClient, ctx: CommandContext, options: OutputOptions): Promise<number> {
  await client.ping(ctx.request);
  const info = client.serverInfo;
  const summary = { server: info, era: client.era, protocolVersion: client.protocolVersion };
  if (options.json) ctx.json(summary);
  else
    ctx.out(
      `ok: ${safeLine(String(info?.name ?? 'server'))} ${safeLine(String(info?.version ?? ''))} (${client.era}, ${client.protocolVersion})`,
    );
  return EXIT.ok;
}

/** Re-exported so the program can tell usage errors apart. */
export { UsageError };
