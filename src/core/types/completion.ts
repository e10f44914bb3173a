/**
 * Argument completion: `completion/complete`.
 */
import type { Meta } from './common.js';

export type PromptReference = { type: 'ref/prompt'; name: string; title?: string };
export type ResourceTemplateReference = { type: 'ref/resource'; uri: string };

/**
 * @example
 * const p: CompleteParams = { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } };
 */
export type CompleteParams = {
  ref: PromptReference | ResourceTemplateReference;
  argument: { name: string; value: string };
  context?: { arguments?: { [key: string]: string } };
  _meta?: Meta;
};

/** At most 100 values. */
export type CompleteResult = {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
};
