/**
 * Tools: `tools/list`, `tools/call`.
 */
import type { Icon, Meta, PaginatedResult } from './common.js';
import type { ContentBlock } from './content.js';

/**
 * A JSON Schema object as sent on the wire. Kept loose: MCP allows any 2020-12 keyword.
 *
 * @example
 * const s: JsonSchemaObject = { type: 'object', properties: { city: { type: 'string' } } };
 */
export type JsonSchemaObject = { [key: string]: unknown };

/**
 * Untrusted hints about a tool's behaviour.
 *
 * @example
 * const a: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
 */
export type ToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/**
 * 2025-11-25 (experimental tasks).
 *
 * @example
 * server.tool('render', { description: 'Render a video', execution: { taskSupport: 'optional' } }, () => 'ok');
 */
export type ToolExecution = { taskSupport?: 'forbidden' | 'optional' | 'required' };

/**
 * A tool as listed by `tools/list`.
 *
 * @example
 * const t: Tool = { name: 'echo', description: 'Echo', inputSchema: { type: 'object' } };
 */
export type Tool = {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: ToolAnnotations;
  execution?: ToolExecution;
  _meta?: Meta;
};

/**
 * `tools/list` result.
 *
 * @example
 * const { tools, nextCursor }: ListToolsResult = await client.listTools();
 */
export type ListToolsResult = PaginatedResult & { tools: Tool[] };

/**
 * `tools/call` params.
 *
 * @example
 * const params: CallToolParams = { name: 'forecast', arguments: { city: 'Oslo' } };
 * await client.request('tools/call', params);
 */
export type CallToolParams = { name: string; arguments?: { [key: string]: unknown }; _meta?: Meta };

/**
 * `tools/call` result. `isError: true` marks a tool execution error (not a protocol error).
 *
 * @example
 * const r: CallToolResult = { content: [{ type: 'text', text: 'done' }] };
 */
export type CallToolResult = {
  content: ContentBlock[];
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
  _meta?: Meta;
};
