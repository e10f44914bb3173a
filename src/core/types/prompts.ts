/**
 * Prompts: `prompts/list`, `prompts/get`.
 */
import type { Icon, Meta, PaginatedResult, Role } from './common.js';
import type { ContentBlock } from './content.js';

/** @example const a: PromptArgument = { name: 'city', description: 'City name', required: true }; */
export type PromptArgument = { name: string; title?: string; description?: string; required?: boolean };

/**
 * A prompt as listed by `prompts/list`.
 *
 * @example
 * const p: Prompt = { name: 'greet', description: 'Greets', arguments: [{ name: 'who', required: true }] };
 */
export type Prompt = {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
};

/** @example const m: PromptMessage = { role: 'user', content: { type: 'text', text: 'Hi' } }; */
export type PromptMessage = { role: Role; content: ContentBlock };

/**
 * `prompts/list` result.
 *
 * @example
 * const { prompts, nextCursor }: ListPromptsResult = await client.listPrompts();
 */
export type ListPromptsResult = PaginatedResult & { prompts: Prompt[] };

/**
 * `prompts/get` params: argument values are strings.
 *
 * @example
 * const params: GetPromptParams = { name: 'code-review', arguments: { language: 'go', code: 'x := 1' } };
 */
export type GetPromptParams = { name: string; arguments?: { [key: string]: string }; _meta?: Meta };

/** @example const r: GetPromptResult = { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }] }; */
export type GetPromptResult = { description?: string; messages: PromptMessage[]; _meta?: Meta };
