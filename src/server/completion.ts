/**
 * `completion/complete`: candidates for a prompt argument or a resource-template variable.
 */
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { PromptRegistry } from './prompt-registry.js';
import type { ResourceRegistry } from './resource-registry.js';
import type { Completer } from './resource-types.js';
import { guarded, type FailureReporter } from './handler-errors.js';
import type { ViewCaller } from './views/visibility.js';

/** The spec caps one answer at 100 values. */
const MAX_VALUES = 100;

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `completion/complete: ${message}`);
}

function stringRecord(value: unknown): { [name: string]: string } {
  if (typeof value !== 'object' || value === null) return {};
  const out: { [name: string]: string } = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
  return out;
}

function findCompleter(
  ref: JsonObject,
  argument: string,
  prompts: PromptRegistry,
  resources: ResourceRegistry,
  caller: ViewCaller | undefined,
): Completer | undefined {
  // A prompt or template the caller may not see is looked up exactly as an unregistered one.
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') throw invalid('ref.name must be a string');
    const prompt = prompts.entry(ref.name, caller);
    if (!prompt) throw invalid(`unknown prompt: ${ref.name}`);
    return prompt.complete[argument];
  }
  if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw invalid('ref.uri must be a string');
    const template = resources.visibleTemplate(ref.uri, caller);
    // A concrete resource URI has nothing to complete.
    return template?.options.complete?.[argument];
  }
  throw invalid(`unknown ref type: ${String(ref.type)}`);
}

/**
 * Answer a `completion/complete` request.
 *
 * @example
 * await complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }, prompts, resources);
 * // { completion: { values: ['Ada', 'Alan'], total: 2, hasMore: false } }
 */
export async function complete(
  params: JsonObject,
  prompts: PromptRegistry,
  resources: ResourceRegistry,
  ctx?: FailureReporter,
  caller?: ViewCaller,
): Promise<JsonObject> {
  const ref = params.ref as JsonObject | undefined;
  const argument = params.argument as JsonObject | undefined;
  if (typeof ref !== 'object' || ref === null) throw invalid('ref must be an object');
  if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
    throw invalid('argument must be { name: string, value: string }');
  }
  const completer = findCompleter(ref, argument.name, prompts, resources, caller);
  if (!completer) return { completion: { values: [] } };
  const context = { arguments: stringRecord((params.context as JsonObject | undefined)?.arguments) };
  const value = argument.value;
  const run = () => completer(value, context);
  const target = String(ref.name ?? ref.uri);
  const values = (await (ctx ? guarded(ctx, target, run) : run())).filter((v) => typeof v === 'string');
  return {
    completion: {
      values: values.slice(0, MAX_VALUES),
      total: values.length,
      hasMore: values.length > MAX_VALUES,
    },
  };
}
