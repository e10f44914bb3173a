/**
 * A McpServer with task tools, reached by raw 2026-07-28 requests over the memory transport
 * (test/modern/harness.ts): the tests write the `_meta` and the tasks extension themselves.
 */
import type { JsonObject } from 'keel-mcp/core';
import { McpServer, type McpServerOptions } from 'keel-mcp/server';
import { connectRaw, type Raw } from '../modern/harness.js';

export const EXT = 'io.modelcontextprotocol/tasks';

/** `_meta` keys of a request that declares the tasks extension (and elicitation). */
export const WITH_TASKS: JsonObject = {
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [EXT]: {} } },
};

export function newServer(options: McpServerOptions = {}): McpServer {
  return new McpServer({ name: 'tasks-test', version: '1.0.0' }, { onerror: undefined, ...options });
}

/** `tools/call` from a request that declares the extension. */
export function callTask(raw: Raw, name: string, args: JsonObject = {}): Promise<JsonObject> {
  return raw.modern('tools/call', { name, arguments: args }, WITH_TASKS);
}

export function tasks(raw: Raw, method: string, params: JsonObject): Promise<JsonObject> {
  return raw.modern(method, params, WITH_TASKS);
}

/** Poll `tasks/get` (bounded: 2,000 polls, one macrotask apart) until `done` holds. */
export async function waitForTask(
  raw: Raw,
  taskId: string,
  done: (task: JsonObject) => boolean,
): Promise<JsonObject> {
  for (let i = 0; i < 2_000; i += 1) {
    const task = await tasks(raw, 'tasks/get', { taskId });
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`task ${taskId} never reached the awaited state`);
}

export const terminal = (task: JsonObject): boolean =>
  task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';

export { connectRaw, type Raw };
