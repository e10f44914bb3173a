/**
 * Checks on what a client sends back in a retry: the shape of `inputResponses`, and that each
 * answer is a result of the method it answers. Failures are `-32602` (the spec's "validate that
 * the data provided by the client is a valid InputResponses object").
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import type { InputResponses } from '../../core/types/mrtr.js';

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

/**
 * `params.inputResponses` as a map of results; undefined when absent. Every value must be an
 * object, also under keys the server does not know (those are then ignored, as the spec says).
 *
 * @example
 * readInputResponses({ inputResponses: { a: { roots: [] } } }); // { a: { roots: [] } }
 * readInputResponses({ inputResponses: null }); // throws McpError -32602
 */
export function readInputResponses(params: JsonObject): InputResponses | undefined {
  if (!('inputResponses' in params) || params.inputResponses === undefined) return undefined;
  const responses = params.inputResponses;
  if (!isJsonObject(responses)) {
    throw invalid('inputResponses must be an object mapping input request keys to results');
  }
  for (const [key, value] of Object.entries(responses)) {
    if (!isJsonObject(value)) {
      throw invalid(
        `inputResponses[${JSON.stringify(key)}] must be a result object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
      );
    }
  }
  return responses as InputResponses;
}

function checkElicit(answer: JsonObject): string | undefined {
  const { action, content } = answer;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    return `action must be "accept", "decline" or "cancel", got ${JSON.stringify(action) ?? 'nothing'}`;
  }
  if (content !== undefined && !isJsonObject(content)) return 'content must be an object';
  return undefined;
}

function checkSampling(answer: JsonObject): string | undefined {
  if (answer.role !== 'user' && answer.role !== 'assistant') return 'role must be "user" or "assistant"';
  if (!isJsonObject(answer.content) && !Array.isArray(answer.content))
    return 'content must be a content block or an array of them';
  if (typeof answer.model !== 'string') return 'model must be a string';
  return undefined;
}

function checkRoots(answer: JsonObject): string | undefined {
  const { roots } = answer;
  if (!Array.isArray(roots)) return 'roots must be an array';
  for (const root of roots) {
    if (!isJsonObject(root) || typeof root.uri !== 'string') return 'every root needs a string uri';
  }
  return undefined;
}

const checks: { [method: string]: (answer: JsonObject) => string | undefined } = {
  'elicitation/create': checkElicit,
  'sampling/createMessage': checkSampling,
  'roots/list': checkRoots,
};

/**
 * Throw `-32602` unless `answer` is a plausible result of `method` (the handler's own checks, such
 * as an elicitation schema, come after).
 *
 * @example
 * checkAnswer('roots/list', 'client_roots', { roots: [{ uri: 'file:///a' }] }); // ok
 * checkAnswer('roots/list', 'client_roots', { roots: 'x' }); // throws McpError -32602
 */
export function checkAnswer(method: string, key: string, answer: JsonObject): void {
  const problem = checks[method]?.(answer);
  if (problem !== undefined) {
    throw invalid(`inputResponses[${JSON.stringify(key)}] is not a valid ${method} result: ${problem}`);
  }
}
