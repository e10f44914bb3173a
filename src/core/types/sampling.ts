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

export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

/** @example const m: SamplingMessage = { role: 'user', content: { type: 'text', text: 'Hi' } }; */
export type SamplingMessage = { role: Role; content: SamplingContent | SamplingContent[]; _meta?: Meta };

export type ModelPreferences = {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
};

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
