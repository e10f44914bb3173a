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
import { ContextClosedError, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { RESULT_TYPE_INPUT_REQUIRED, type InputRequestMethod } from '../../core/types/mrtr.js';
import type { BackChannelOptions, InputChannel } from '../input-channel.js';
import { readInputResponses } from './input-answers.js';
import {
  DEFAULT_MAX_INPUT_ROUNDS,
  type InputRoundsOptions,
  type RoundOutcome,
  type RoundRequest,
} from './input-round-types.js';
import { KnownAnswers, questionFingerprint } from './known-answers.js';
import { InputRequiredSignal, TooManyInputRoundsError } from './mrtr-errors.js';
import { bindRequest, type RequestBinding, type RequestStateContent } from './request-state.js';
import { RequestSignalSource, RoundDecision } from './round-decision.js';
import { collectRound, keyPrefixOrRefusal, reportSwallowedRound, type Asked } from './round-questions.js';

// The types and the answer and question bookkeeping live in their own files; importers keep this one.
export {
  DEFAULT_MAX_INPUT_ROUNDS,
  type InputRoundsOptions,
  type RoundOutcome,
  type RoundRequest,
} from './input-round-types.js';

const EMPTY_STATE: RequestStateContent = { round: 0, answers: {}, asked: {} };
const noop = (): void => undefined;

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
export class InputRounds extends RoundDecision implements InputChannel {
  private calls = 0;
  private readonly keys = new Set<string>();
  private readonly asked = new Map<string, Asked>();

  private constructor(
    private readonly incoming: RoundRequest,
    private readonly options: InputRoundsOptions,
    /** Computed only when needed (a state to open or to seal): most requests never ask for input. */
    private binding: Promise<RequestBinding> | undefined,
    private readonly state: RequestStateContent,
    private readonly known: KnownAnswers,
  ) {
    super(
      incoming.abortSource ??
        (incoming.signal === undefined ? undefined : new RequestSignalSource(incoming.signal)),
    );
  }

  /**
   * Read and check a request's `inputResponses` and `requestState`. Rejects with `-32602`
   * (McpError, or RequestStateError with `data.reason`) for malformed answers or a state that is
   * tampered, expired, or issued for another request or principal.
   */
  static async open(request: RoundRequest, options: InputRoundsOptions): Promise<InputRounds> {
    const responses = readInputResponses(request.params);
    const token = request.params.requestState;
    if (token === undefined) {
      return new InputRounds(
        request,
        options,
        undefined,
        EMPTY_STATE,
        new KnownAnswers(EMPTY_STATE, responses),
      );
    }
    const binding = bindRequest(request.method, request.params, request.principal);
    const state = await options.codec.open(token, await binding);
    return new InputRounds(request, options, binding, state, new KnownAnswers(state, responses));
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
    const prefix = keyPrefixOrRefusal(this.incoming.method, method, options);
    if (prefix instanceof Error) return Promise.reject(prefix);
    this.calls += 1;
    const key = options?.inputKey ?? `${prefix}-${this.calls}`;
    if (this.keys.has(key)) {
      return Promise.reject(new TypeError(`Input key "${key}" was used twice in one run of the handler`));
    }
    this.keys.add(key);
    const print = questionFingerprint(method, params);
    const known = this.known.answerFor(key, method, print);
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

  protected returned(value: unknown): void {
    if (this.phase === 'decided') {
      if (this.closedReason instanceof InputRequiredSignal) this.reportSwallowed();
      return;
    }
    if (this.phase === 'collecting') {
      this.reportSwallowed();
      this.finishRound();
      return;
    }
    // No closedReason: a late call makes its ContextClosedError then (ask). Building an Error here
    // captured a stack on every modern call, ~7 % of a modern echo's server CPU.
    this.decide();
    this.settle?.resolve({ type: 'complete', value });
  }

  protected threw(error: unknown): void {
    if (this.phase === 'decided') return; // the request was answered; this is the handler winding down
    // A round was requested before the handler failed: the round wins (the next run sees the answers).
    if (this.phase === 'collecting') return this.finishRound();
    this.decide(); // no closedReason, as in returned()
    this.settle?.reject(error);
  }

  private finishRound(): void {
    if (this.phase === 'decided') return;
    const signal = new InputRequiredSignal();
    const { inputRequests, asked } = collectRound(this.asked);
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
      .then((binding) => this.options.codec.seal(binding, { round, answers: this.known.consumed, asked }))
      .then(
        (requestState) =>
          this.settle?.resolve({
            type: 'input_required',
            result: { resultType: RESULT_TYPE_INPUT_REQUIRED, inputRequests, requestState },
          }),
        (error: unknown) => this.settle?.reject(error),
      );
  }

  private reportSwallowed(): void {
    reportSwallowedRound(this.incoming.method, this.incoming.params, this.options.onSwallowedRound);
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
