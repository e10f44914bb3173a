/**
 * Tools: registration (schemas compiled once, failing loudly), `tools/list` and `tools/call`.
 */
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import { compileSchema, type CompiledSchema, type SchemaInput } from '../core/schema/compile-schema.js';
import type { Tool } from '../core/types/tools.js';
import { checkScopes } from './auth/options.js';
import type { ListChangedNotifier } from './list-changed.js';
import { checkParamHeaderAnnotations } from './modern/param-header-rules.js';
import { paginate } from './pagination.js';
import { Registry } from './registry.js';
import { runTool } from './tool-call.js';
import type { ToolContext } from './tool-context.js';
import { startToolTask } from './tasks/tool-task.js';
import type { RegisteredTool, ToolConfig, ToolEntry, ToolHandler, ToolUpdate } from './tool-types.js';
import { checkToolName, type ToolNameWarning } from './tool-names.js';
import type { AuthInfo } from '../core/auth.js';
import { compileVisibility, visibleToToken, type RuleFailure, type ViewCaller } from './views/visibility.js';

// The spec's recommendation for tools without parameters.
const NO_ARGUMENTS = Object.freeze({ type: 'object', additionalProperties: false });

function objectSchema(schema: CompiledSchema, what: string): CompiledSchema {
  if (schema.jsonSchema.type !== 'object') {
    throw new Error(`The ${what} schema must describe an object (type: "object")`);
  }
  return schema;
}

function definitionOf(
  name: string,
  config: ToolConfig<any, any>,
  entry: Pick<ToolEntry, 'input' | 'output'>,
): Tool {
  const tool: Tool = { name, inputSchema: entry.input?.jsonSchema ?? { ...NO_ARGUMENTS } };
  if (config.title !== undefined) tool.title = config.title;
  tool.description = config.description;
  if (entry.output) tool.outputSchema = entry.output.jsonSchema;
  if (config.annotations !== undefined) tool.annotations = config.annotations;
  if (config.icons !== undefined) tool.icons = config.icons;
  if (config.execution !== undefined) tool.execution = config.execution;
  if (config._meta !== undefined) tool._meta = config._meta;
  return tool;
}

function scopesOf(name: string, config: ToolConfig<any, any>): readonly string[] | undefined {
  return config.scopes === undefined ? undefined : checkScopes(config.scopes, `tool "${name}" scopes`);
}

/** @internal Tools of one McpServer. */
export class ToolRegistry {
  private readonly registry: Registry<ToolEntry>;
  /** Names already warned about (SEP-986): once per name, even if registered again. */
  private readonly warned = new Set<string>();

  constructor(
    notifier: ListChangedNotifier,
    private readonly ruleFailed: RuleFailure = () => undefined,
    private readonly nameWarning: () => ((warning: ToolNameWarning) => void) | undefined = () => undefined,
  ) {
    this.registry = new Registry('tools', notifier, 'tool');
  }

  get size(): number {
    return this.registry.size;
  }

  /** True when some tool has a `visibleTo` rule (then `tools/list` depends on the caller). */
  get hasRules(): boolean {
    return this.registry.hasRules;
  }

  private warnName(name: string, warning: ToolNameWarning | undefined): void {
    if (warning === undefined || this.warned.has(name)) return;
    this.warned.add(name);
    const hook = this.nameWarning();
    try {
      hook?.(warning);
    } catch {
      // A throwing hook must not fail the registration it was only told about.
    }
  }

  register<I extends SchemaInput | undefined, O extends SchemaInput | undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): RegisteredTool<I, O> {
    // Throws for a name that cannot work; the spec's SHOULDs only warn, once registered (tool-names.ts).
    const nameWarning = checkToolName(name);
    if (typeof config?.description !== 'string' || config.description === '') {
      throw new Error(`Tool "${name}" needs a non-empty description`);
    }
    const input =
      config.input &&
      objectSchema(compileSchema(config.input, 'input', `tool "${name}" input`), `tool "${name}" input`);
    const output =
      config.output &&
      objectSchema(compileSchema(config.output, 'output', `tool "${name}" output`), `tool "${name}" output`);
    // 2026-07-28 HTTP clients drop a tool with an invalid x-mcp-header: refuse it here instead.
    if (input) checkParamHeaderAnnotations(name, input.jsonSchema);
    const value: ToolEntry = {
      definition: definitionOf(name, config, { input, output }),
      input,
      output,
      handler,
      scopes: scopesOf(name, config),
      visible: compileVisibility(config.visibleTo, `tool "${name}"`, this.ruleFailed),
    };
    const entry = this.registry.add(name, value);
    this.warnName(name, nameWarning);
    let current: ToolConfig<any, any> = config;
    return this.registry.handle(entry, (stored, changes: ToolUpdate<I, O>) => {
      const { handler: nextHandler, ...metadata } = changes;
      // An `undefined` in the update clears that field; every reader of the config takes it as absent.
      current = { ...current, ...metadata } as ToolConfig<any, any>;
      return {
        ...stored,
        definition: definitionOf(name, current, stored),
        handler: nextHandler ?? stored.handler,
        scopes: scopesOf(name, current),
        visible: compileVisibility(current.visibleTo, `tool "${name}"`, this.ruleFailed),
      };
    });
  }

  /**
   * The scopes a call of the enabled tool `name` needs (undefined: none, or no such tool, or,
   * given the caller's token, a tool its declarative `visibleTo` hides from it).
   */
  scopes(name: string, auth?: AuthInfo): readonly string[] | undefined {
    const entry = this.registry.get(name);
    if (entry === undefined || (auth !== undefined && !visibleToToken(entry.visible, auth))) return undefined;
    return entry.scopes;
  }

  /** `tools/list` as `caller` sees it (pages are of that view: a cursor never skips or leaks). */
  list(params: JsonObject, pageSize: number, caller?: ViewCaller): JsonObject {
    return paginate(
      'tools',
      this.registry.visible(caller).map((entry) => entry.definition),
      params,
      pageSize,
    );
  }

  /**
   * Synchronous when the tool is (see {@link runTool}); a bad request throws an McpError. A tool
   * `caller` may not see is answered exactly as an unknown one (never a task).
   */
  call(params: JsonObject, ctx: ToolContext, caller?: ViewCaller): JsonObject | Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'tools/call: name must be a string');
    const entry = this.registry.find(name, caller);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new McpError(ErrorCode.InvalidParams, 'tools/call: arguments must be an object');
    }
    // 2026-07-28 over HTTP: Mcp-Param-* must mirror the annotated arguments (the era checks).
    const refused = ctx.checkToolHeaders(entry.definition.inputSchema, args as JsonObject);
    if (refused) throw refused;
    const support = entry.definition.execution?.taskSupport;
    if (support !== undefined && support !== 'forbidden') {
      // The request's era decides whether this call becomes a task (or refuses it: -32021).
      const tasks = ctx.taskManager;
      if (tasks !== undefined && ctx.taskWire.mode(support, name, params) === 'task')
        return startToolTask(ctx, tasks, params, (taskCtx) =>
          runTool(name, entry, args as JsonObject, taskCtx),
        );
    } else if (params.task !== undefined) {
      // 2025-11-25: a task asked of a tool that offers none is refused (-32601); 2026-07-28 ignores it.
      ctx.taskWire.mode('forbidden', name, params);
    }
    return runTool(name, entry, args as JsonObject, ctx);
  }

  /** True when an enabled tool may run as a task (`execution.taskSupport` optional or required). */
  offersTasks(): boolean {
    return this.registry.enabled().some((entry) => {
      const support = entry.definition.execution?.taskSupport;
      return support === 'optional' || support === 'required';
    });
  }
}
