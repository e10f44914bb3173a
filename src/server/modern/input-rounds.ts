/**
 * The modern-era back-channel: `ctx.elicit`, `ctx.createMessage` and `ctx.listRoots` as multi
 * round-trip requests (2026-07-28). The legacy back-channel sends a server→client request; this
 * one answers the whole request with `input_required` instead, and runs the handler again, from the
 * start, when the client retries with the answers. Nothing lives in memory between rounds: the
 * answers so far travel in the signed `requestState` (request-state.ts), so any process holding
 * the keys can serve the retry.
 *
 * How a run goes:
 * - The N-th back-channel call of a run gets the key the handler gave (`{ inputKey }`) or
 *   `elicit-N` / `sample-N` / `roots-N`. Handlers are expected to ask the same questions in the
 *   same order on every run (they see the same params and the same answers).
 * - An answer known for that key (from the state, or from this retry's `inputResponses`) is
 *   returned at once, if it answers the same question (same method, same params fingerprint;
 *   otherwise it is asked again).
 * - An unknown answer is recorded and the call stays pending. One macrotask later every call made
 *   meanwhile (a `Promise.all` of several asks) is in the round, and the request is decided:
 *   `input_required` with all of them. Then the pending calls reject with {@link InputRequiredSignal}
 *   and {@link InputRounds.signal} aborts, so the handler's `finally` blocks run.
 * - Once a round is requested, the round wins: a handler that catches the signal and returns a
 *   value has its value discarded, and `onSwallowedRound` reports it.
 * - An answer of the wrong shape (or one the handler rejects, e.g. an elicitation that does not
 *   match its schema, via {@link InputRounds.rejectAnswer}) ends the request with `-32602`,
 *   whatever the handler does with the error.
 */
import { ContextClosedError, ErrorCode, McpError, RequestAbortedError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import {
  INPUT_REQUIRED_METHODS,
  RESULT_TYPE_INPUT_REQUIRED,
  type InputRequestMethod,
  type InputRequests,
  type InputRequiredResult,
  type InputResponses,
} from '../../core/types/mrtr.js';
import type { BackChannelOptions, InputChannel } from '../tool-context.js';
import { checkAnswer, readInputResponses } from './input-answers.js';
import { InputRequiredSignal, SwallowedInputRoundError, TooManyInputRoundsError } from './mrtr-errors.js';
import {
  bindRequest,
  type RequestBinding,
  type RequestStateCodec,
  type RequestStateContent,
  type StoredAnswer,
} from './request-state.js';
import { canonicalJson, fingerprint } from './state-encoding.js';

/** Default cap on `input_required` answers for one request. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;

/**
 * Server-wide settings of the modern back-channel.
 *
 * @example
 * const options: InputRoundsOptions = { codec: new RequestStateCodec({ keys: [key] }), maxRounds: 4 };
 */
export interface InputRoundsOptions {
  readonly codec: RequestStateCodec;
  /** Most `input_required` answers one request may get. Default {@link DEFAULT_MAX_INPUT_ROUNDS}. */
  readonly maxRounds?: number;
  /** Told when a handler returned a value after its round was requested. Default: `console.warn`. */
  readonly onSwallowedRound?: (error: SwallowedInputRoundError) => void;
}

/**
 * The modern request a back-channel serves.
 *
 * @example
 * const request: RoundRequest = { method: 'tools/call', params, principal: authInfo?.subject, signal: ctx.signal };
 */
export interface RoundRequest {
  readonly method: string;
  /** The request's params, `inputResponses` and `requestState` included. */
  readonly params: JsonObject;
  /** Who is asking (e.g. the OAuth subject), when known: a state only verifies for the same one. */
  readonly principal?: string;
  /** The request's own signal (peer cancel, close): aborts the run. */
  readonly signal?: AbortSignal;
}

/**
 * How a run ended: the handler's value, or a round to send.
 *
 * @example
 * const outcome = await rounds.run(() => handler(args, ctx));
 * return outcome.type === 'complete' ? toResult(outcome.value) : outcome.result;
 */
export type RoundOutcome<T> =
  | { readonly type: 'complete'; readonly value: T }
  | { readonly type: 'input_required'; readonly result: InputRequiredResult };

type Phase = 'idle' | 'running' | 'collecting' | 'decided';

interface Asked {
  readonly method: InputRequestMethod;
  readonly params: JsonObject;
  readonly fingerprint: string;
}

const EMPTY_STATE: RequestStateContent = { round: 0, answers: {}, asked: {} };
const KEY_PREFIX: { [method: string]: string } = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};
const noop = (): void => undefined;

/** Keys are handler-chosen strings: `constructor` or `__proto__` must be plain keys, not the prototype's. */
function dictionary<V>(): { [key: string]: V } {
  return Object.create(null) as { [key: string]: V };
}

function own<V>(record: { readonly [key: string]: V }, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The question's identity: `_meta` and a URL elicitation's generated id change from run to run. */
function questionFingerprint(method: string, params: JsonObject): string {
  const question: JsonObject = { ...params };
  delete question._meta;
  if (method === 'elicitation/create') delete question.elicitationId;
  return fingerprint(`${method} ${canonicalJson(question)}`);
}

function defaultSwallowedReport(error: SwallowedInputRoundError): void {
  console.warn(`[keel] ${error.message}`);
}

/**
 * One modern request's back-channel, and the runner that turns a handler run into a result or an
 * `input_required` round. Create one per request with {@link InputRounds.open}, hand it to the
 * handler context as its `InputChannel`, combine {@link InputRounds.signal} into the handler's
 * signal, and {@link InputRounds.run} the handler once.
 *
 * @example
 * const rounds = await InputRounds.open({ method: 'tools/call', params }, { codec });
 * const outcome = await rounds.run(async () => {
 *   const answer = await elicitForm(rounds, { message: 'Your name?', schema }, { inputKey: 'user_name' });
 *   return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : 'Hello!';
 * });
 * // outcome: { type: 'input_required', result: { resultType: 'input_required', inputRequests, requestState } }
 */
export class InputRounds implements InputChannel {
  private phase: Phase = 'idle';
  private calls = 0;
  private readonly keys = new Set<string>();
  private readonly consumed: { [key: string]: StoredAnswer } = dictionary();
  private readonly asked = new Map<string, Asked>();
  private readonly pending: ((reason: unknown) => void)[] = [];
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closedReason: unknown;
  private settle: { resolve(outcome: RoundOutcome<unknown>): void; reject(error: unknown): void } | undefined;
  private readonly onAbort = (): void => this.abort(this.incoming.signal?.reason);

  private constructor(
    private readonly incoming: RoundRequest,
    private readonly options: InputRoundsOptions,
    /** Computed only when needed (a state to open or to seal): most requests never ask for input. */
    private binding: Promise<RequestBinding> | undefined,
    private readonly state: RequestStateContent,
    private readonly responses: InputResponses | undefined,
  ) {}

  /**
   * Read and check a request's `inputResponses` and `requestState`. Rejects with `-32602`
   * (McpError, or RequestStateError with `data.reason`) for malformed answers or a state that is
   * tampered, expired, or issued for another request or principal.
   */
  static async open(request: RoundRequest, options: InputRoundsOptions): Promise<InputRounds> {
    const responses = readInputResponses(request.params);
    const token = request.params.requestState;
    if (token === undefined) return new InputRounds(request, options, undefined, EMPTY_STATE, responses);
    const binding = bindRequest(request.method, request.params, request.principal);
    const state = await options.codec.open(token, await binding);
    return new InputRounds(request, options, binding, state, responses);
  }

  /** Aborts (reason: {@link InputRequiredSignal}) once the request is answered with a round. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** How many rounds this request had before this run (0 on a first call). */
  get round(): number {
    return this.state.round;
  }

  /** The back-channel call, as {@link InputChannel} defines it. */
  request(method: string, params: JsonObject, options?: BackChannelOptions): Promise<JsonObject> {
    const answer = this.ask(method, params, options);
    // A pending call the handler never awaits must not become an unhandled rejection when the
    // round is decided; awaiting it still throws.
    answer.catch(noop);
    return answer;
  }

  /**
   * The handler found an answer invalid (e.g. an elicitation that does not match its schema): the
   * request ends with `error` (a -32602 McpError), whatever the handler does next.
   */
  rejectAnswer(error: McpError): void {
    this.fail(error);
  }

  /** Run the handler once. Resolves when the request is decided, which may be before the handler ends. */
  run<T>(handler: () => T | Promise<T>): Promise<RoundOutcome<T>> {
    if (this.phase !== 'idle') return Promise.reject(new Error('InputRounds.run may be called once'));
    this.phase = 'running';
    const decided = new Promise<RoundOutcome<T>>((resolve, reject) => {
      this.settle = { resolve: resolve as (outcome: RoundOutcome<unknown>) => void, reject };
    });
    const signal = this.incoming.signal;
    if (signal?.aborted) {
      this.abort(signal.reason);
      return decided;
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
    try {
      Promise.resolve(handler()).then(
        (value) => this.returned(value),
        (error: unknown) => this.threw(error),
      );
    } catch (error) {
      this.threw(error);
    }
    return decided;
  }

  private ask(
    method: string,
    params: JsonObject,
    options: BackChannelOptions | undefined,
  ): Promise<JsonObject> {
    if (this.phase === 'decided' || this.phase === 'idle') {
      // The reason is an Error of ours, or the abort reason the request's signal carried.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(this.closedReason ?? new ContextClosedError());
    }
    if (!INPUT_REQUIRED_METHODS.has(this.incoming.method)) {
      return Promise.reject(
        new McpError(
          ErrorCode.InternalError,
          `A ${this.incoming.method} handler cannot ask the client for input in the 2026-07-28 era: only tools/call, prompts/get and resources/read can`,
        ),
      );
    }
    const prefix = KEY_PREFIX[method];
    if (prefix === undefined) {
      return Promise.reject(
        new McpError(ErrorCode.InternalError, `${method} cannot be sent to the client as an input request`),
      );
    }
    if (options?.signal?.aborted)
      return Promise.reject(new RequestAbortedError({ cause: options.signal.reason }));
    this.calls += 1;
    const key = options?.inputKey ?? `${prefix}-${this.calls}`;
    if (this.keys.has(key)) {
      return Promise.reject(new TypeError(`Input key "${key}" was used twice in one run of the handler`));
    }
    this.keys.add(key);
    const print = questionFingerprint(method, params);
    const known = this.answerFor(key, method, print);
    if (known instanceof McpError) {
      this.fail(known);
      return Promise.reject(known);
    }
    if (known !== undefined) return Promise.resolve(known);
    this.asked.set(key, { method: method as InputRequestMethod, params, fingerprint: print });
    if (this.phase === 'running') {
      this.phase = 'collecting';
      // One macrotask: every call the handler makes before it blocks (Promise.all of several asks,
      // asks after answers that resolve at once) joins this round.
      this.timer = setTimeout(() => this.finishRound(), 0);
    }
    return new Promise<JsonObject>((_resolve, reject) => this.pending.push(reject));
  }

  /** The answer to `key` if it is known and answers this question; an McpError if it is malformed. */
  private answerFor(key: string, method: string, print: string): JsonObject | McpError | undefined {
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

  private returned(value: unknown): void {
    if (this.phase === 'decided') {
      if (this.closedReason instanceof InputRequiredSignal) this.reportSwallowed();
      return;
    }
    if (this.phase === 'collecting') {
      this.reportSwallowed();
      this.finishRound();
      return;
    }
    this.decide();
    this.closedReason = new ContextClosedError();
    this.settle?.resolve({ type: 'complete', value });
  }

  private threw(error: unknown): void {
    if (this.phase === 'decided') return; // the request was answered; this is the handler winding down
    // A round was requested before the handler failed: the round wins (the next run sees the answers).
    if (this.phase === 'collecting') return this.finishRound();
    this.decide();
    this.closedReason = new ContextClosedError();
    this.settle?.reject(error);
  }

  private finishRound(): void {
    if (this.phase === 'decided') return;
    const signal = new InputRequiredSignal();
    const inputRequests: InputRequests = dictionary();
    const asked: { [key: string]: { m: string; q: string } } = dictionary();
    for (const [key, entry] of this.asked) {
      inputRequests[key] = { method: entry.method, params: entry.params };
      asked[key] = { m: entry.method, q: entry.fingerprint };
    }
    this.decide(signal);
    const round = this.state.round + 1;
    const maxRounds = this.options.maxRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    if (round > maxRounds) {
      this.settle?.reject(new TooManyInputRoundsError(maxRounds));
      return;
    }
    const request = this.incoming;
    this.binding ??= bindRequest(request.method, request.params, request.principal);
    this.binding
      .then((binding) => this.options.codec.seal(binding, { round, answers: this.consumed, asked }))
      .then(
        (requestState) =>
          this.settle?.resolve({
            type: 'input_required',
            result: { resultType: RESULT_TYPE_INPUT_REQUIRED, inputRequests, requestState },
          }),
        (error: unknown) => this.settle?.reject(error),
      );
  }

  private fail(error: McpError): void {
    if (this.phase === 'decided') return;
    this.decide(error);
    this.settle?.reject(error);
  }

  private abort(reason: unknown): void {
    if (this.phase === 'decided') return;
    this.decide(reason);
    this.settle?.reject(reason);
  }

  /** The request is decided: no more calls, pending calls reject with `reason`, the signal aborts. */
  private decide(reason?: unknown): void {
    this.phase = 'decided';
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.incoming.signal?.removeEventListener('abort', this.onAbort);
    if (reason === undefined) return;
    this.closedReason = reason;
    this.controller.abort(reason);
    for (const reject of this.pending.splice(0)) reject(reason);
  }

  private reportSwallowed(): void {
    const params = this.incoming.params;
    // The same target bindRequest names (the tool or prompt name, the resource URI).
    const target =
      typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
    const report = this.options.onSwallowedRound ?? defaultSwallowedReport;
    try {
      report(new SwallowedInputRoundError(this.incoming.method, target));
    } catch {
      // Reporting must never break the answer.
    }
  }
}

/**
 * Open the back-channel for one modern request and run `handler` with it.
 *
 * @example
 * const outcome = await runWithRounds({ method: 'tools/call', params }, { codec }, (channel) =>
 *   tool(args, new ToolContext(requestContext, session, services, channel)),
 * );
 */
export async function runWithRounds<T>(
  request: RoundRequest,
  options: InputRoundsOptions,
  handler: (channel: InputRounds) => T | Promise<T>,
): Promise<RoundOutcome<T>> {
  const rounds = await InputRounds.open(request, options);
  return rounds.run(() => handler(rounds));
}
