// Hand-built 2026-07-28 ("modern") requests for the load generator, and the checks applied to the
// answers. No handshake: every request carries the protocol version and the client capabilities
// in `params._meta`, and the headers a 2026-07-28 HTTP client sends (`MCP-Protocol-Version`,
// `Mcp-Method`, `Mcp-Name`). A tool that needs the client's model answers `input_required`; the
// client retries the same call with the answer under the server's key and the `requestState`.
import { checkToolResult } from './wire.mjs';

export const MODERN_VERSION = '2026-07-28';

const META = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN_VERSION}","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"keel-bench","version":"1.0.0"}}`;

/** The headers of a modern `tools/call` of `name`. */
export function modernHeaders(name) {
  return { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': name };
}

/** `tools/call echo`, modern. */
export function modernEcho(id, text) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":${JSON.stringify(text)}},${META}}}`;
}

/**
 * `tools/call wait_sampling`, modern; `retry` = `{ key, text, requestState }` answers the sampling
 * request the server asked for under `key` with `text`.
 */
export function modernSampling(id, prompt, retry) {
  let extra = '';
  if (retry) {
    const answer = `{"role":"assistant","content":{"type":"text","text":${JSON.stringify(retry.text)}},"model":"bench-model","stopReason":"endTurn"}`;
    extra = `,"inputResponses":{${JSON.stringify(retry.key)}:${answer}}`;
    if (retry.requestState !== undefined) extra += `,"requestState":${JSON.stringify(retry.requestState)}`;
  }
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"wait_sampling","arguments":{"prompt":${JSON.stringify(prompt)}},${META}${extra}}}`;
}

/** Throws unless `message` is the complete tool result for `id` with text `text`. */
export function checkModernResult(message, id, text) {
  checkToolResult(message, id, text);
  if (message.result.resultType !== 'complete') {
    throw new Error(`result for id ${id} is not "complete": ${JSON.stringify(message).slice(0, 300)}`);
  }
}

/**
 * Throws unless `message` is an `input_required` result for `id` asking for exactly one
 * `sampling/createMessage` of `prompt`; returns its key and the `requestState` (if any).
 */
export function checkInputRequired(message, id, prompt) {
  const result = message.result;
  const entries = Object.entries(result?.inputRequests ?? {});
  const [key, request] = entries[0] ?? [];
  if (
    message.id !== id ||
    result.resultType !== 'input_required' ||
    entries.length !== 1 ||
    request.method !== 'sampling/createMessage' ||
    request.params?.messages?.[0]?.content?.text !== prompt
  ) {
    throw new Error(`expected input_required for id ${id}: ${JSON.stringify(message).slice(0, 300)}`);
  }
  return { key, requestState: result.requestState };
}

// Tasks (the `io.modelcontextprotocol/tasks` extension): declared per request in the client
// capabilities; a `tools/call` of a tool that supports tasks then answers with a task
// (`resultType: "task"`), read with `tasks/get` (`Mcp-Name` carries the task id).
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const TASK_META = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN_VERSION}","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"extensions":{"${TASKS_EXTENSION}":{}}},"io.modelcontextprotocol/clientInfo":{"name":"keel-bench","version":"1.0.0"}}`;

/** `tools/call echo_task`, modern, declaring the tasks extension: the server answers a task. */
export function modernTaskCall(id, text) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo_task","arguments":{"text":${JSON.stringify(text)}},${TASK_META}}}`;
}

/** The headers of a modern `tasks/get` of `taskId`. */
export function taskGetHeaders(taskId) {
  return { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tasks/get', 'mcp-name': taskId };
}

/** `tasks/get`, modern, declaring the tasks extension (without it the server answers -32021). */
export function modernTaskGet(id, taskId) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tasks/get","params":{"taskId":${JSON.stringify(taskId)},${TASK_META}}}`;
}

/** Throws unless `message` answers `id` with a created task (`resultType: "task"`); returns its id. */
export function checkTaskCreated(message, id) {
  const result = message.result;
  if (
    message.id !== id ||
    result?.resultType !== 'task' ||
    typeof result.taskId !== 'string' ||
    result.taskId === '' ||
    (result.status !== 'working' && result.status !== 'completed')
  ) {
    throw new Error(`expected a created task for id ${id}: ${JSON.stringify(message).slice(0, 300)}`);
  }
  return result.taskId;
}

/**
 * Checks a `tasks/get` answer for `id` about `taskId`: `false` while the task is `working` (poll
 * again), `true` once it is `completed` with the text result `text`; throws on anything else
 * (another task, another status, another result).
 */
export function checkTaskPoll(message, id, taskId, text) {
  const task = message.result;
  if (message.id !== id || task?.taskId !== taskId || task.resultType !== 'complete') {
    throw new Error(`expected task ${taskId} for id ${id}: ${JSON.stringify(message).slice(0, 300)}`);
  }
  if (task.status === 'working') return false;
  const content = task.result?.content;
  if (
    task.status !== 'completed' ||
    !Array.isArray(content) ||
    content.length !== 1 ||
    content[0]?.type !== 'text' ||
    content[0].text !== text
  ) {
    throw new Error(
      `expected task ${taskId} completed with "${text}": ${JSON.stringify(message).slice(0, 300)}`,
    );
  }
  return true;
}
