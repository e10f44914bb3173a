/**
 * The settings and the request a modern back-channel (input-rounds.ts) serves, and how one handler
 * run ends: its value, or an `input_required` round to answer with.
 */
import type { AbortWatcher } from '../../core/engine/inbound.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { InputRequiredResult } from '../../core/types/mrtr.js';
import type { SwallowedInputRoundError } from './mrtr-errors.js';
import type { RequestStateCodec } from './request-state.js';

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
  readonly maxRounds?: number | undefined;
  /** Told when a handler returned a value after its round was requested. Default: `console.warn`. */
  readonly onSwallowedRound?: ((error: SwallowedInputRoundError) => void) | undefined;
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
  readonly principal?: string | undefined;
  /** The request's own signal (peer cancel, close): aborts the run. */
  readonly signal?: AbortSignal;
  /**
   * The request's abort without an AbortSignal (a the handler's `RequestContext` is one); used instead of
   * `signal` when given. The server passes this: most requests never need a signal.
   */
  readonly abortSource?: AbortSource;
}

/**
 * Tells a watcher when a request aborts, at once if it already has (the handler's `RequestContext` is one).
 *
 * @example
 * const source: AbortSource = ctx; // a RequestContext
 * source.watchAbort({ parentAborted: (reason) => stop(reason) });
 */
export interface AbortSource {
  watchAbort(watcher: AbortWatcher): void;
  unwatchAbort(watcher: AbortWatcher): void;
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
