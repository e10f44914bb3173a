/**
 * The names and values of the OpenTelemetry semantic conventions for MCP (GenAI semantic
 * conventions, docs/gen-ai/mcp.md, status "Development") that Keel's telemetry writes, and how an
 * outcome becomes `error.type`. One place, so docs/telemetry.md and the code name the same things.
 */
import {
  CancelledByPeerError,
  ConnectionClosedError,
  McpError,
  RequestAbortedError,
  RequestTimeoutError,
} from '../core/error-classes.js';
import type { JsonObject } from '../core/jsonrpc.js';

export const ATTR = {
  METHOD: 'mcp.method.name',
  SESSION_ID: 'mcp.session.id',
  PROTOCOL_VERSION: 'mcp.protocol.version',
  REQUEST_ID: 'jsonrpc.request.id',
  TOOL_NAME: 'gen_ai.tool.name',
  PROMPT_NAME: 'gen_ai.prompt.name',
  OPERATION_NAME: 'gen_ai.operation.name',
  RESOURCE_URI: 'mcp.resource.uri',
  ERROR_TYPE: 'error.type',
  STATUS_CODE: 'rpc.response.status_code',
  NETWORK_TRANSPORT: 'network.transport',
  NETWORK_PROTOCOL: 'network.protocol.name',
} as const;

export const METRIC = {
  CLIENT_OPERATION: 'mcp.client.operation.duration',
  SERVER_OPERATION: 'mcp.server.operation.duration',
  CLIENT_SESSION: 'mcp.client.session.duration',
  SERVER_SESSION: 'mcp.server.session.duration',
} as const;

/** The bucket boundaries (seconds) the conventions advise for all four histograms. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);

/** `error.type` of a tool call answered with `isError: true` (a result, not a JSON-RPC error). */
export const TOOL_ERROR = 'tool_error';

/**
 * The low-cardinality `error.type` of a failure: the JSON-RPC code of an error answer, a fixed
 * word for the lifecycle endings (cancel, disconnect, timeout), the class name otherwise.
 */
export function errorTypeOf(error: unknown): string {
  if (error instanceof McpError) return String(error.code);
  if (error instanceof CancelledByPeerError || error instanceof RequestAbortedError) return 'cancelled';
  if (error instanceof ConnectionClosedError) return 'connection_closed';
  if (error instanceof RequestTimeoutError) return 'timeout';
  if (error instanceof Error && error.name !== '' && error.name !== 'Error') return error.name;
  return '_OTHER';
}

/** What a span of `method` with `params` is named, and its target attributes (tool, prompt, resource). */
export function describeCall(
  method: string,
  params: JsonObject | undefined,
  attributes: Record<string, string | number>,
): string {
  attributes[ATTR.METHOD] = method;
  const name = params?.name;
  if (method === 'tools/call' && typeof name === 'string') {
    attributes[ATTR.TOOL_NAME] = name;
    attributes[ATTR.OPERATION_NAME] = 'execute_tool';
    return `${method} ${name}`;
  }
  if (method === 'prompts/get' && typeof name === 'string') {
    attributes[ATTR.PROMPT_NAME] = name;
    return `${method} ${name}`;
  }
  const uri = params?.uri;
  if (typeof uri === 'string' && method.startsWith('resources/')) attributes[ATTR.RESOURCE_URI] = uri;
  // A resource URI is high-cardinality: the conventions keep it out of the span name by default.
  return method;
}

/** True for a tools/call result that reports a tool execution error (`isError: true`). */
export function isToolError(method: string, result: JsonObject): boolean {
  return method === 'tools/call' && result.isError === true;
}
