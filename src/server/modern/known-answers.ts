/**
 * The answers a modern request run can use: those carried in its verified `requestState` (earlier
 * rounds) and those in this retry's `inputResponses`. An answer is used only for the question it
 * answered (same key, method and params fingerprint); a fresh one must have the shape of a result
 * of its method, else the request ends with `-32602`.
 */
import type { McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { InputResponses } from '../../core/types/mrtr.js';
import { checkAnswer } from './input-answers.js';
import type { RequestStateContent, StoredAnswer } from './request-state.js';
import { canonicalJson, fingerprint } from './state-encoding.js';

/**
 * A record without a prototype: keys are handler-chosen strings, and `constructor` or `__proto__`
 * must be plain keys, not the prototype's.
 *
 * @example
 * const byKey = dictionary<number>(); byKey.__proto__ = 1; // an own key
 */
export function dictionary<V>(): { [key: string]: V } {
  return Object.create(null) as { [key: string]: V };
}

function own<V>(record: { readonly [key: string]: V }, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * The question's identity: `_meta` and a URL elicitation's generated id change from run to run.
 *
 * @example
 * questionFingerprint('roots/list', {}) === questionFingerprint('roots/list', { _meta: { x: 1 } }); // true
 */
export function questionFingerprint(method: string, params: JsonObject): string {
  const question: JsonObject = { ...params };
  delete question._meta;
  if (method === 'elicitation/create') delete question.elicitationId;
  return fingerprint(`${method} ${canonicalJson(question)}`);
}

/**
 * The answers of one run, and the ones it used (carried into the next state).
 *
 * @example
 * const known = new KnownAnswers(state, readInputResponses(params));
 * const answer = known.answerFor('user_name', 'elicitation/create', questionFingerprint(method, params));
 */
export class KnownAnswers {
  /** The answers this run used, by key: what the next round's state carries. */
  readonly consumed: { [key: string]: StoredAnswer } = dictionary();

  constructor(
    private readonly state: RequestStateContent,
    private readonly responses: InputResponses | undefined,
  ) {}

  /** The answer to `key` if it is known and answers this question; an McpError if it is malformed. */
  answerFor(key: string, method: string, print: string): JsonObject | McpError | undefined {
    const stored = own(this.state.answers, key);
    if (stored !== undefined && stored.m === method && stored.q === print) {
      this.consumed[key] = stored;
      return stored.r;
    }
    const fresh = this.responses === undefined ? undefined : own(this.responses, key);
    if (fresh === undefined) return undefined;
    // An answer to a question asked in the last round must be for that very question; without a
    // state (the client answered before being asked) the handler's own checks decide.
    const asked = own(this.state.asked, key);
    if (asked !== undefined && (asked.m !== method || asked.q !== print)) return undefined;
    try {
      checkAnswer(method, key, fresh);
    } catch (error) {
      return error as McpError;
    }
    this.consumed[key] = { m: method, q: print, r: fresh };
    return fresh;
  }
}
