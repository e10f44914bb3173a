/**
 * Sampling: `sampling/createMessage` (server → client), including tool use (2025-11-25).
 */
import type { Meta, Role } from './common.js';
import type { AudioContent, ContentBlock, ImageContent, TextContent } from './content.js';
import type { Tool } from './tools.js';

/** @example const u: ToolUseContent = { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Oslo' } }; */
export type ToolUseContent = {
  type: 'tool_use';
  id: string;
  name: string;
  input: { [key: string]: unknown };
  _meta?: Meta;
};

/** @example const r: ToolResultContent = { type: 'tool_result', toolUseId: 'c1', content: [] }; */
export type ToolResultContent = {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
  _meta?: Meta;
};

/**
 * What a sampling message carries (tool use and tool results need `sampling.tools`).
 *
 * @example
 * const content: SamplingContent = { type: 'text', text: 'Summarize this' };
 */
export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

/** @example const m: SamplingMessage = { role: 'user', content: { type: 'text', text: 'Hi' } }; */
export type SamplingMessage = { role: Role; content: SamplingContent | SamplingContent[]; _meta?: Meta };

/**
 * Hints for the client's model choice; the client decides.
 *
 * @example
 * const prefs: ModelPreferences = { hints: [{ name: 'claude' }], speedPriority: 0.8, costPriority: 0.5 };
 */
export type ModelPreferences = {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
};

/**
 * Whether the model may, must or must not use the tools offered in sampling.
 *
 * @example
 * const choice: ToolChoice = { mode: 'required' };
 */
export type ToolChoice = { mode?: 'auto' | 'required' | 'none' };

/**
 * @example
 * const p: CreateMessageParams = { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 100 };
 */
export type CreateMessageParams = {
  messages: SamplingMessage[];
  maxTokens: number;
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: { [key: string]: unknown };
  /** Only if the client declared `sampling.tools`. */
  tools?: Tool[];
  toolChoice?: ToolChoice;
  _meta?: Meta;
};

/** @example const r: CreateMessageResult = { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm' }; */
export type CreateMessageResult = SamplingMessage & {
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
};

/**
 * The text of a sampling result (or any sampling message): its `content` may be one block (as
 * before 2025-11-25) or an array of blocks (2025-11-25 and later, e.g. text beside `tool_use`).
 * Text blocks are joined with `"\n"`; images, audio, tool use and tool results are left out. No
 * text at all gives `''`.
 *
 * @example
 * const result = await ctx.createMessage({ messages, maxTokens: 200 });
 * const answer = samplingText(result); // works for `content: {...}` and `content: [...]`
 */
export function samplingText(result: Pick<SamplingMessage, 'content'>): string {
  const content = result.content as SamplingContent | readonly SamplingContent[] | undefined | null;
  const blocks = Array.isArray(content) ? content : content ? [content] : [];
  return blocks
    .filter((block): block is TextContent => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n');
}
