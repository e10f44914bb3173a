/**
 * The typed surface of `McpServer.tool()`: config, handler, and how handler types follow the
 * schemas given.
 */
import type { CompiledSchema, SchemaInput } from '../core/schema/compile-schema.js';
import type { InferInput, InferOutput, StandardSchema } from '../core/schema/standard-schema.js';
import type { Icon, Meta } from '../core/types/common.js';
import type { CallToolResult, Tool, ToolAnnotations, ToolExecution } from '../core/types/tools.js';
import type { RegisteredHandle } from './registry.js';
import type { ToolContext } from './tool-context.js';
import type { ViewRule, Visibility } from './views/visibility.js';

/**
 * @example
 * const config: ToolConfig<typeof input, undefined> = { description: 'Forecast', input: z.object({ city: z.string() }) };
 */
export interface ToolConfig<I extends SchemaInput | undefined, O extends SchemaInput | undefined> {
  title?: string;
  /** Required: clients (and the conformance suite) expect every tool to say what it does. */
  description: string;
  /** Arguments: a Standard Schema (zod, valibot, arktype, ...) or a raw JSON Schema object. */
  input?: I;
  /** Structured result: results then carry `structuredContent`, validated, plus a JSON text mirror. */
  output?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: ToolExecution;
  _meta?: Meta;
  /**
   * OAuth scopes a caller's token needs to call this tool (HTTP with `auth` only): without them the
   * request gets 403 `insufficient_scope` (step-up). Listing is not affected.
   */
  scopes?: readonly string[];
  /**
   * Who may see the tool (per-caller views): by scope, subject or OAuth client, or a predicate on
   * the caller. To anyone else it does not exist: absent from `tools/list`, and a call is the
   * unknown-tool error. Unlike `scopes`, which keep the tool listed and answer 403 for step-up.
   */
  visibleTo?: Visibility;
}

/**
 * What the handler receives: the input schema's output type, or a plain object for raw schemas.
 *
 * @example
 * const input = z.object({ city: z.string() });
 * const args: ToolArgs<typeof input> = { city: 'Oslo' };
 */
export type ToolArgs<I> = I extends StandardSchema<any, any> ? InferOutput<I> : { [key: string]: unknown };

/**
 * The structured value a handler with an output schema may return.
 *
 * @example
 * const output = z.object({ tempC: z.number() });
 * const value: ToolStructured<typeof output> = { tempC: 21 };
 */
export type ToolStructured<O> =
  O extends StandardSchema<any, any> ? InferInput<O> : { [key: string]: unknown };

/**
 * A handler returns a string (one text block), a full `CallToolResult`, or — with an output
 * schema — the structured value itself.
 *
 * @example
 * const text: ToolReturn<undefined> = 'done';
 * const full: ToolReturn<undefined> = { content: [{ type: 'text', text: 'done' }], isError: false };
 */
export type ToolReturn<O> = string | CallToolResult | (O extends undefined ? never : ToolStructured<O>);

/**
 * @example
 * const handler: ToolHandler<undefined, undefined> = async (_args, ctx) => `called ${String(ctx.requestId)}`;
 */
export type ToolHandler<I, O> = (
  args: ToolArgs<I>,
  ctx: ToolContext,
) => ToolReturn<O> | Promise<ToolReturn<O>>;

/**
 * What `RegisteredTool.update()` may change. Schemas are fixed at registration (they type the handler).
 *
 * @example
 * const tool = server.tool('status', { description: 'Status' }, () => 'ok');
 * tool.update({ annotations: { readOnlyHint: true }, handler: () => 'still ok' });
 */
export type ToolUpdate<I, O> = {
  // `undefined` removes a field (`{ scopes: undefined }`: no scopes any more; `{ visibleTo:
  // undefined }`: visible to everyone).
  [K in 'title' | 'description' | 'annotations' | 'icons' | '_meta' | 'scopes' | 'visibleTo']?:
    ToolConfig<any, any>[K] | undefined;
} & {
  /** The new handler; `undefined` keeps the current one. */
  handler?: ToolHandler<I, O> | undefined;
};

/**
 * The handle `tool()` returns.
 *
 * @example
 * const t = server.tool('beta', { description: 'Beta feature' }, () => 'hi');
 * t.disable(); // clients get notifications/tools/list_changed
 */
export type RegisteredTool<I = unknown, O = unknown> = RegisteredHandle<ToolUpdate<I, O>>;

/** What the registry keeps per tool (the registry and `runTool` both read it). */
export interface ToolEntry {
  definition: Tool;
  input: CompiledSchema | undefined;
  output: CompiledSchema | undefined;
  handler: ToolHandler<any, any>;
  /** OAuth scopes a call needs (registration option `scopes`). */
  scopes: readonly string[] | undefined;
  /** Who may see it (registration option `visibleTo`); undefined: everyone. */
  visible: ViewRule | undefined;
}
