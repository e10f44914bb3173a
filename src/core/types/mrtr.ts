/**
 * Multi round-trip requests (2026-07-28, SEP-2322): the wire types of an `input_required` round.
 * Kept apart from the other 2026-07-28 types (modern.ts) so each piece stays small.
 */
import type { JsonObject } from '../jsonrpc.js';
import type { Meta } from './common.js';

/**
 * The server→client requests a round may carry (the spec allows exactly these three).
 *
 * @example
 * const method: InputRequestMethod = 'elicitation/create';
 */
export type InputRequestMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/**
 * One request for input: what would have been a server→client request in the legacy era.
 *
 * @example
 * const ask: InputRequest = { method: 'roots/list', params: {} };
 */
export type InputRequest = { method: InputRequestMethod; params: JsonObject };

/**
 * Server-assigned keys → requests for input (`InputRequiredResult.inputRequests`).
 *
 * @example
 * const requests: InputRequests = { client_roots: { method: 'roots/list', params: {} } };
 */
export type InputRequests = { [key: string]: InputRequest };

/**
 * The client's answers, under the keys of the {@link InputRequests} they answer (a result each:
 * ElicitResult, CreateMessageResult or ListRootsResult).
 *
 * @example
 * const answers: InputResponses = { user_name: { action: 'accept', content: { name: 'Ada' } } };
 */
export type InputResponses = { [key: string]: JsonObject };

/**
 * The answer "more input is needed": the client gathers the inputs and retries the same request
 * with `inputResponses` and the exact `requestState`. Never carries caching hints.
 *
 * @example
 * const result: InputRequiredResult = {
 *   resultType: 'input_required',
 *   inputRequests: { client_roots: { method: 'roots/list', params: {} } },
 *   requestState: 'k1.eyJ2IjoxfQ.c2ln',
 * };
 */
export type InputRequiredResult = {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
  _meta?: Meta;
};

/**
 * The params a retry adds to the original request.
 *
 * @example
 * const retry: InputResponseRequestParams = { inputResponses: { client_roots: { roots: [] } }, requestState: state };
 */
export type InputResponseRequestParams = { inputResponses?: InputResponses; requestState?: string };

/**
 * The only requests that may be answered with `input_required` (spec: "Supported Requests").
 *
 * @example
 * INPUT_REQUIRED_METHODS.has('tools/call'); // true
 * INPUT_REQUIRED_METHODS.has('tools/list'); // false
 */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

/**
 * The `resultType` of an {@link InputRequiredResult}.
 *
 * @example
 * if (result.resultType === RESULT_TYPE_INPUT_REQUIRED) retryWithAnswers(result);
 */
export const RESULT_TYPE_INPUT_REQUIRED = 'input_required';
