/**
 * Prompts: registration, `prompts/list`, `prompts/get`.
 */
import { checkScopes } from './auth/options.js';
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import { compileSchema, type CompiledSchema } from '../core/schema/compile-schema.js';
import { isStandardSchema } from '../core/schema/standard-schema.js';
import type { Prompt, PromptArgument } from '../core/types/prompts.js';
import type { ListChangedNotifier } from './list-changed.js';
import { argumentsFromSchema } from './prompt-args.js';
import { paginate } from './pagination.js';
import type {
  PromptArgsInput,
  PromptConfig,
  PromptHandler,
  PromptReturn,
  PromptUpdate,
  RegisteredPrompt,
} from './prompt-types.js';
import { Registry } from './registry.js';
import type { Completer } from './resource-types.js';
import type { ToolContext } from './tool-context.js';
import { guarded } from './handler-errors.js';
import type { AuthInfo } from '../core/auth.js';
import {
  compileVisibility,
  visibleToToken,
  type RuleFailure,
  type ViewCaller,
  type ViewRule,
} from './views/visibility.js';

/** @internal */
export interface PromptEntry {
  definition: Prompt;
  schema: CompiledSchema | undefined;
  handler: PromptHandler<any>;
  complete: { [argument: string]: Completer };
  /** OAuth scopes a `prompts/get` needs (registration option `scopes`). */
  scopes: readonly string[] | undefined;
  /** Who may see it (registration option `visibleTo`); undefined: everyone. */
  visible: ViewRule | undefined;
}

function toResult(value: PromptReturn, description: string | undefined): JsonObject {
  if (typeof value === 'string') {
    return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  }
  if (Array.isArray(value))
    return description === undefined ? { messages: value } : { description, messages: value };
  return value;
}

/** @internal Prompts of one McpServer. */
export class PromptRegistry {
  private readonly registry: Registry<PromptEntry>;

  constructor(
    notifier: ListChangedNotifier,
    private readonly ruleFailed: RuleFailure = () => undefined,
  ) {
    this.registry = new Registry('prompts', notifier, 'prompt');
  }

  get size(): number {
    return this.registry.size;
  }

  /** True when some prompt has a `visibleTo` rule (then `prompts/list` depends on the caller). */
  get hasRules(): boolean {
    return this.registry.hasRules;
  }

  register<A extends PromptArgsInput | undefined>(
    name: string,
    config: PromptConfig<A>,
    handler: PromptHandler<A>,
  ): RegisteredPrompt<A> {
    if (typeof name !== 'string' || name === '') throw new Error('A prompt needs a non-empty name');
    if (typeof config?.description !== 'string' || config.description === '') {
      throw new Error(`Prompt "${name}" needs a non-empty description`);
    }
    const args = config.args;
    const schema = isStandardSchema(args)
      ? compileSchema(args, 'input', `prompt "${name}" arguments`)
      : undefined;
    const argumentList = schema
      ? argumentsFromSchema(schema, name)
      : args
        ? [...(args as PromptArgument[])]
        : undefined;
    const complete = config.complete ?? {};
    for (const argName of Object.keys(complete)) {
      if (!argumentList?.some((a) => a.name === argName)) {
        throw new Error(`Prompt "${name}" has no argument "${argName}" to complete`);
      }
    }
    const definitionOf = (c: PromptConfig<any>): Prompt => {
      const prompt: Prompt = { name };
      if (c.title !== undefined) prompt.title = c.title;
      prompt.description = c.description;
      if (argumentList) prompt.arguments = argumentList;
      if (c.icons !== undefined) prompt.icons = c.icons;
      if (c._meta !== undefined) prompt._meta = c._meta;
      return prompt;
    };
    const scopesOf = (c: PromptConfig<any>): readonly string[] | undefined =>
      c.scopes === undefined ? undefined : checkScopes(c.scopes, `prompt "${name}" scopes`);
    const entry = this.registry.add(name, {
      definition: definitionOf(config),
      schema,
      handler,
      complete,
      scopes: scopesOf(config),
      visible: compileVisibility(config.visibleTo, `prompt "${name}"`, this.ruleFailed),
    });
    let current: PromptConfig<any> = config;
    return this.registry.handle(entry, (stored, { handler: next, ...changes }: PromptUpdate<A>) => {
      // An `undefined` in the update clears that field; every reader of the config takes it as absent.
      current = { ...current, ...changes } as PromptConfig<any>;
      return {
        ...stored,
        definition: definitionOf(current),
        handler: next ?? stored.handler,
        scopes: scopesOf(current),
        visible: compileVisibility(current.visibleTo, `prompt "${name}"`, this.ruleFailed),
      };
    });
  }

  /** The scopes a `prompts/get` of the enabled prompt `name` needs (see `ToolRegistry.scopes`). */
  scopes(name: string, auth?: AuthInfo): readonly string[] | undefined {
    const entry = this.registry.get(name);
    if (entry === undefined || (auth !== undefined && !visibleToToken(entry.visible, auth))) return undefined;
    return entry.scopes;
  }

  /** The enabled prompt named `name` that `caller` may see. */
  entry(name: string, caller?: ViewCaller): PromptEntry | undefined {
    return this.registry.find(name, caller);
  }

  hasCompleters(): boolean {
    return this.registry.enabled().some((entry) => Object.keys(entry.complete).length > 0);
  }

  /** `prompts/list` as `caller` sees it. */
  list(params: JsonObject, pageSize: number, caller?: ViewCaller): JsonObject {
    return paginate(
      'prompts',
      this.registry.visible(caller).map((entry) => entry.definition),
      params,
      pageSize,
    );
  }

  /** A prompt `caller` may not see is answered exactly as an unknown one. */
  async get(params: JsonObject, ctx: ToolContext, caller?: ViewCaller): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'prompts/get: name must be a string');
    const entry = this.registry.find(name, caller);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const raw = params.arguments ?? {};
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new McpError(ErrorCode.InvalidParams, 'prompts/get: arguments must be an object');
    }
    let args: unknown = raw;
    if (entry.schema) {
      const checked = await entry.schema.validate(raw);
      if (!checked.ok) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid arguments for prompt "${name}": ${checked.message}`,
        );
      }
      args = checked.value;
    } else {
      for (const argument of entry.definition.arguments ?? []) {
        const value = (raw as JsonObject)[argument.name];
        if (argument.required && value === undefined) {
          throw new McpError(
            ErrorCode.InvalidParams,
            `Prompt "${name}" needs the argument "${argument.name}"`,
          );
        }
        if (value !== undefined && typeof value !== 'string') {
          throw new McpError(ErrorCode.InvalidParams, `Prompt argument "${argument.name}" must be a string`);
        }
      }
    }
    const returned = await guarded(ctx, name, () => entry.handler(args, ctx));
    return toResult(returned, entry.definition.description);
  }
}
