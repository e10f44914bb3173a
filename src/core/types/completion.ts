/**
 * Argument completion: `completion/complete`.
 */
import type { Meta } from './common.js';

/**
 * What to complete: an argument of this prompt.
 *
 * @example
 * const ref: PromptReference = { type: 'ref/prompt', name: 'code-review' };
 */
export type PromptReference = { type: 'ref/prompt'; name: string; title?: string };
/**
 * What to complete: a variable of the resource template with this exact URI template.
 *
 * @example
 * const ref: ResourceTemplateReference = { type: 'ref/resource', uri: 'users://{id}/profile' };
 */
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

/**
 * At most 100 values.
 *
 * @example
 * const result: CompleteResult = { completion: { values: ['python'], total: 1, hasMore: false } };
 */
export type CompleteResult = {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
};
