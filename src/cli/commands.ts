/**
 * What each command does once connected: list, call, read, prompt, ping.
 */
import type { McpClient } from '../client/index.js';
import {
  formatPrompt,
  formatPromptResult,
  formatReadResult,
  formatResource,
  formatTool,
  formatToolResult,
} from './format.js';
import type { CommandContext } from './session.js';
import { parseArguments } from './tool-arguments.js';
import { CliFailure, EXIT, UsageError } from './usage.js';

/** Options of the commands that print results. */
export interface OutputOptions {
  json?: boolean;
  args?: string;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);

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
  ctx.out(options.json ? json({ tools }) : tools.map((tool) => formatTool(tool)).join('\n') || '(no tools)');
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
  if (options.json) ctx.out(json({ resources, resourceTemplates }));
  else
    ctx.out(
      [...resources, ...resourceTemplates].map((r) => formatResource(r)).join('\n') || '(no resources)',
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
  ctx.out(
    options.json ? json({ prompts }) : prompts.map((p) => formatPrompt(p)).join('\n') || '(no prompts)',
  );
  return EXIT.ok;
}

/**
 * `keel call <tool> key=value…`: arguments typed from the tool's input schema; an `isError`
 * result goes to stderr (stdout with `--json`) and exits 1.
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
  const result = await client.callTool(name, args, ctx.request);
  const failed = result.isError === true;
  if (options.json) ctx.out(json(result));
  else if (failed) ctx.err(`keel: tool "${name}" failed:\n${formatToolResult(result)}`);
  else ctx.out(formatToolResult(result));
  return failed ? EXIT.failure : EXIT.ok;
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
  ctx.out(options.json ? json(result) : formatReadResult(result));
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
  ctx.out(options.json ? json(result) : formatPromptResult(result));
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
  ctx.out(
    options.json
      ? json(summary)
      : `ok: ${info?.name ?? 'server'} ${info?.version ?? ''} (${client.era}, ${client.protocolVersion})`,
  );
  return EXIT.ok;
}

/** Re-exported so the program can tell usage errors apart. */
export { UsageError };
