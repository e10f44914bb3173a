/**
 * One `tools/call`: validate arguments, run the handler, shape and check its result.
 *
 * Error policy (SEP-1303):
 * - bad arguments and anything the handler throws → a tool execution error (`isError: true`, the
 *   message as text), which the model can read and act on;
 * - `-32042` (URL elicitation required) thrown by a handler → that JSON-RPC error, as the spec wants;
 * - a result that breaks the tool's own output schema is a server bug, not something the model can
 *   fix → JSON-RPC `-32603` with the reason, so the author sees it in the client's error.
 */
import { isThenable } from '../core/engine/thenable.js';
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { Validation } from '../core/schema/compile-schema.js';
import type { CallToolResult } from '../core/types/tools.js';
import { InputRequiredSignal } from './modern/mrtr-errors.js';
import type { ToolContext } from './tool-context.js';
import type { ToolEntry } from './tool-types.js';

/**
 * A tool execution error result (`isError: true`): the model sees the message and can react.
 *
 * @example
 * server.tool('divide', { description: 'a / b', input: z.object({ a: z.number(), b: z.number() }) },
 *   ({ a, b }) => (b === 0 ? toolError('Cannot divide by zero') : String(a / b)));
 */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function isCallToolResult(value: object): value is CallToolResult {
  const content = (value as { content?: unknown }).content;
  return (
    Array.isArray(content) &&
    content.every((block) => typeof block === 'object' && block !== null && typeof block.type === 'string')
  );
}

/** Turn whatever the handler returned into a result; `mirrored` marks a structured-only return. */
function shape(value: unknown): { result: CallToolResult; mirrored: boolean } {
  if (typeof value === 'string')
    return { result: { content: [{ type: 'text', text: value }] }, mirrored: false };
  if (value === undefined || value === null) return { result: { content: [] }, mirrored: false };
  if (typeof value !== 'object') {
    const text =
      typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
        ? value.toString()
        : `[${typeof value}]`;
    return { result: { content: [{ type: 'text', text }] }, mirrored: false };
  }
  if (isCallToolResult(value)) return { result: { ...value }, mirrored: false };
  return { result: { content: [], structuredContent: value as JsonObject }, mirrored: true };
}

/** Structured results SHOULD also be readable as text by clients that ignore structuredContent. */
function mirrorText(result: CallToolResult, mirrored: boolean): CallToolResult {
  if (mirrored) result.content = [{ type: 'text', text: JSON.stringify(result.structuredContent) }];
  return result;
}

function acceptOutput(
  name: string,
  result: CallToolResult,
  mirrored: boolean,
  checked: Validation<unknown>,
): CallToolResult {
  if (!checked.ok) {
    throw new McpError(
      ErrorCode.InternalError,
      `Tool "${name}" returned structuredContent that does not match its output schema: ${checked.message}`,
    );
  }
  result.structuredContent = checked.value as JsonObject;
  return mirrorText(result, mirrored);
}

/** Shape what the handler returned and check it against the output schema, if any. */
function complete(
  name: string,
  entry: ToolEntry,
  returned: unknown,
): CallToolResult | Promise<CallToolResult> {
  const { result, mirrored } = shape(returned);
  if (!entry.output || result.isError) return mirrorText(result, mirrored);
  if (result.structuredContent === undefined) {
    throw new McpError(
      ErrorCode.InternalError,
      `Tool "${name}" has an output schema but returned no structuredContent`,
    );
  }
  const checked = entry.output.validate(result.structuredContent);
  return checked instanceof Promise
    ? checked.then((value) => acceptOutput(name, result, mirrored, value))
    : acceptOutput(name, result, mirrored, checked);
}

function handlerFailed(name: string, error: unknown, ctx: ToolContext): CallToolResult {
  if (error instanceof McpError && error.code === ErrorCode.UrlElicitationRequired) throw error;
  // 2026-07-28: the request was already answered with input_required; not a tool failure.
  if (error instanceof InputRequiredSignal) throw error;
  const wire = ctx.wireErrorFor(error);
  if (wire) throw wire;
  ctx.failed(error, name);
  const message = error instanceof Error ? error.message : String(error);
  return toolError(message || `Tool "${name}" failed`);
}

function invoke(
  name: string,
  entry: ToolEntry,
  input: unknown,
  ctx: ToolContext,
): CallToolResult | Promise<CallToolResult> {
  let returned: unknown;
  try {
    returned = entry.handler(input, ctx);
  } catch (error) {
    return handlerFailed(name, error, ctx);
  }
  if (isThenable(returned)) {
    return Promise.resolve(returned).then(
      (value) => complete(name, entry, value),
      (error: unknown) => handlerFailed(name, error, ctx),
    );
  }
  return complete(name, entry, returned);
}

function validated(
  name: string,
  entry: ToolEntry,
  checked: Validation<unknown>,
  ctx: ToolContext,
): CallToolResult | Promise<CallToolResult> {
  if (!checked.ok) return toolError(`Invalid arguments for tool "${name}": ${checked.message}`);
  return invoke(name, entry, checked.value, ctx);
}

/**
 * Run a tool and return the `tools/call` result. Synchronous end to end when the validator and
 * the handler are: a tool that needs no `await` costs no promise.
 */
export function runTool(
  name: string,
  entry: ToolEntry,
  args: JsonObject,
  ctx: ToolContext,
): JsonObject | Promise<JsonObject> {
  if (!entry.input) return invoke(name, entry, args, ctx);
  const checked = entry.input.validate(args);
  return checked instanceof Promise
    ? checked.then((value) => validated(name, entry, value, ctx))
    : validated(name, entry, checked, ctx);
}
