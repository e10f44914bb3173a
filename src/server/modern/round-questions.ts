/**
 * The questions of one modern request run: which back-channel calls may become input requests,
 * the key a call gets when the handler gives none, and the round they make together.
 */
import { ErrorCode, McpError, RequestAbortedError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import {
  INPUT_REQUIRED_METHODS,
  type InputRequestMethod,
  type InputRequests,
} from '../../core/types/mrtr.js';
import type { BackChannelOptions } from '../input-channel.js';
import { dictionary } from './known-answers.js';
import { SwallowedInputRoundError } from './mrtr-errors.js';
import type { StoredQuestion } from './request-state.js';

/**
 * A question the run asked and has no answer for.
 *
 * @example
 * const asked: Asked = { method: 'roots/list', params: {}, fingerprint: questionFingerprint('roots/list', {}) };
 */
export interface Asked {
  readonly method: InputRequestMethod;
  readonly params: JsonObject;
  readonly fingerprint: string;
}

const KEY_PREFIX: { [method: string]: string } = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

/**
 * The default key prefix of a back-channel call (`elicit`, `sample`, `roots`), or the error that
 * refuses the call: a request that cannot ask for input, a method that is not an input request,
 * or a call whose own signal has already aborted.
 *
 * @example
 * const prefix = keyPrefixOrRefusal('tools/call', 'roots/list', undefined); // 'roots'
 */
export function keyPrefixOrRefusal(
  requestMethod: string,
  method: string,
  options: BackChannelOptions | undefined,
): string | Error {
  if (!INPUT_REQUIRED_METHODS.has(requestMethod)) {
    return new McpError(
      ErrorCode.InternalError,
      `A ${requestMethod} handler cannot ask the client for input in the 2026-07-28 era: only tools/call, prompts/get and resources/read can`,
    );
  }
  const prefix = KEY_PREFIX[method];
  if (prefix === undefined) {
    return new McpError(
      ErrorCode.InternalError,
      `${method} cannot be sent to the client as an input request`,
    );
  }
  if (options?.signal?.aborted) return new RequestAbortedError({ cause: options.signal.reason });
  return prefix;
}

/**
 * The round the unanswered questions make: the `inputRequests` to send, and what the next state
 * remembers of them (method and fingerprint).
 *
 * @example
 * const { inputRequests, asked } = collectRound(this.asked);
 */
export function collectRound(questions: ReadonlyMap<string, Asked>): {
  inputRequests: InputRequests;
  asked: { [key: string]: StoredQuestion };
} {
  const inputRequests: InputRequests = dictionary();
  const asked: { [key: string]: StoredQuestion } = dictionary();
  for (const [key, entry] of questions) {
    inputRequests[key] = { method: entry.method, params: entry.params };
    asked[key] = { m: entry.method, q: entry.fingerprint };
  }
  return { inputRequests, asked };
}

function defaultSwallowedReport(error: SwallowedInputRoundError): void {
  console.warn(`[keel] ${error.message}`);
}

/**
 * Tell `report` (default: one `console.warn` line) that a handler returned a value after its round
 * was requested. Reporting never breaks the answer: a throwing `report` is ignored.
 *
 * @example
 * reportSwallowedRound('tools/call', params, options.onSwallowedRound);
 */
export function reportSwallowedRound(
  method: string,
  params: JsonObject,
  report: ((error: SwallowedInputRoundError) => void) | undefined,
): void {
  // The same target bindRequest names (the tool or prompt name, the resource URI).
  const target =
    typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  try {
    (report ?? defaultSwallowedReport)(new SwallowedInputRoundError(method, target));
  } catch {
    // Reporting must never break the answer.
  }
}
