/**
 * Errors of multi round-trip requests. They join the one hierarchy of src/core/errors.ts: wire
 * errors extend McpError with a code from its table (-32602, -32603), the control-flow signal and
 * the swallowed-round report are local errors that never travel.
 */
import { ErrorCode, LocalError, McpError } from '../../core/errors.js';

/**
 * Why a `requestState` was refused.
 *
 * @example
 * const reason: RequestStateFailure = 'expired';
 */
export type RequestStateFailure =
  'malformed' | 'too-large' | 'unknown-key' | 'signature' | 'expired' | 'binding';

/**
 * A `requestState` that cannot be trusted or no longer applies: answered `-32602` (what the
 * conformance suite expects for a tampered state), with `data.reason` telling which check failed.
 *
 * @example
 * catch (e) { if (e instanceof RequestStateError && e.reason === 'expired') startOver(); }
 */
export class RequestStateError extends McpError {
  override name = 'RequestStateError';
  constructor(
    readonly reason: RequestStateFailure,
    message: string,
  ) {
    super(ErrorCode.InvalidParams, message, { reason });
  }
}

/**
 * The handler asked for input more often than `maxRounds` allows (a client that never answers,
 * or a handler that keeps asking): `-32603`, with the limit in `data`.
 *
 * @example
 * catch (e) { if (e instanceof TooManyInputRoundsError) console.log(e.maxRounds); }
 */
export class TooManyInputRoundsError extends McpError {
  override name = 'TooManyInputRoundsError';
  constructor(readonly maxRounds: number) {
    super(
      ErrorCode.InternalError,
      `The request needed more than ${maxRounds} input rounds (the server's maxInputRounds); giving up`,
      { maxRounds },
    );
  }
}

/**
 * What a back-channel call (`ctx.elicit`, `ctx.createMessage`, `ctx.listRoots`) rejects with in
 * the modern era when its answer is not known yet: the request has already been answered with
 * `input_required`, and the handler runs again, from the start, when the client retries with the
 * answer. Catching it changes nothing (the round is sent anyway and whatever the handler returns
 * afterwards is discarded, with a warning), so a broad `catch` should rethrow it.
 *
 * @example
 * try { await ctx.elicit({ message: 'Units?', schema }); }
 * catch (e) { if (e instanceof InputRequiredSignal) throw e; return 'fallback'; }
 */
export class InputRequiredSignal extends LocalError {
  override name = 'InputRequiredSignal';
  constructor() {
    super(
      'Input required: this request was answered with input_required and the handler will run again with the answers (rethrow this error, do not handle it)',
    );
  }
}

/**
 * Reported (never sent) when a handler returned a value after its request had already been
 * answered with `input_required`: it caught the {@link InputRequiredSignal}, or did not await a
 * back-channel call. The value was discarded.
 *
 * @example
 * onSwallowedRound: (e) => log.warn(e.message)
 */
export class SwallowedInputRoundError extends LocalError {
  override name = 'SwallowedInputRoundError';
  constructor(method: string, target: string | undefined) {
    const what = target === undefined ? method : `${method} "${target}"`;
    super(
      `${what}: the handler returned after it asked for input whose answer is not known yet (a caught InputRequiredSignal, or an unawaited ctx.elicit/createMessage/listRoots). Its result was discarded; the client gets input_required and the handler runs again with the answers.`,
    );
  }
}
