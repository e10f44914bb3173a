/**
 * The typed surface of `McpServer.prompt()`.
 */
import type { InferOutput, StandardSchema } from '../core/schema/standard-schema.js';
import type { Icon, Meta } from '../core/types/common.js';
import type { GetPromptResult, PromptArgument, PromptMessage } from '../core/types/prompts.js';
import type { RegisteredHandle } from './registry.js';
import type { Completer } from './resource-types.js';
import type { ToolContext } from './tool-context.js';
import type { Visibility } from './views/visibility.js';

/**
 * Prompt arguments: a Standard Schema of an object of strings, or an explicit list. Arguments are
 * strings on the wire, so a schema whose input has a non-string property (`z.number()`) is a type
 * error here and throws at registration; convert inside the schema instead
 * (`z.string().transform(Number)`).
 *
 * @example
 * const typed: PromptArgsInput = z.object({ who: z.string(), times: z.string().transform(Number).optional() });
 * const listed: PromptArgsInput = [{ name: 'who', description: 'Whom to greet', required: true }];
 */
export type PromptArgsInput =
  StandardSchema<{ readonly [name: string]: string | undefined }, any> | readonly PromptArgument[];

/**
 * @example
 * const config: PromptConfig<typeof args> = { description: 'Greets', args: z.object({ who: z.string() }) };
 */
export interface PromptConfig<A extends PromptArgsInput | undefined> {
  title?: string;
  /** Required: clients (and the conformance suite) expect every prompt to say what it does. */
  description: string;
  args?: A;
  /** Completers per argument (`completion/complete` with `ref/prompt`). */
  complete?: { [argument: string]: Completer };
  icons?: Icon[];
  _meta?: Meta;
  /**
   * OAuth scopes a caller's token needs to get this prompt (HTTP with `auth` only): without them the
   * request gets 403 `insufficient_scope` (step-up). Listing is not affected.
   */
  scopes?: readonly string[];
  /**
   * Who may see the prompt (per-caller views): by scope, subject or OAuth client, or a predicate
   * on the caller. To anyone else it does not exist: absent from `prompts/list`, `prompts/get` and
   * completions answer as for an unknown prompt. Unlike `scopes` (listed, 403 for step-up).
   */
  visibleTo?: Visibility;
}

/**
 * What the handler receives.
 *
 * @example
 * const args: PromptArgs<undefined> = { who: 'Ada' }; // list-declared arguments arrive as strings
 */
export type PromptArgs<A> =
  A extends StandardSchema<any, any> ? InferOutput<A> : { [name: string]: string | undefined };

/**
 * A handler returns a full result, a list of messages, or a string (one user text message).
 *
 * @example
 * const reply: PromptReturn = [{ role: 'user', content: { type: 'text', text: 'Review this code' } }];
 */
export type PromptReturn = GetPromptResult | PromptMessage[] | string;

/** @example const handler: PromptHandler<undefined> = () => 'Say hello'; */
export type PromptHandler<A> = (
  args: PromptArgs<A>,
  ctx: ToolContext,
) => PromptReturn | Promise<PromptReturn>;

/**
 * What `RegisteredPrompt.update()` may change. The arguments are fixed at registration.
 *
 * @example
 * const update: PromptUpdate<undefined> = { description: 'Greets warmly', handler: () => 'Say a warm hello' };
 * greet.update(update);
 */
export type PromptUpdate<A> = {
  // `undefined` removes a field (`{ scopes: undefined }`: no scopes any more).
  [K in 'title' | 'description' | 'icons' | '_meta' | 'scopes' | 'visibleTo']?:
    PromptConfig<any>[K] | undefined;
} & {
  /** The new handler; `undefined` keeps the current one. */
  handler?: PromptHandler<A> | undefined;
};

/**
 * The handle `prompt()` returns.
 *
 * @example
 * const greet = server.prompt('greet', { description: 'Greet someone' }, () => 'Say hello');
 * greet.remove(); // clients get notifications/prompts/list_changed
 */
export type RegisteredPrompt<A = unknown> = RegisteredHandle<PromptUpdate<A>>;
