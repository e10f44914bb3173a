/**
 * The shape of a 2026-07-28 request's back-channel, apart from its implementation
 * (input-rounds.ts), so the era-neutral handler request can name it without importing the rounds.
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { InputChannel } from '../input-channel.js';
import type { RoundOutcome } from './input-round-types.js';

/**
 * A back-channel for one modern request, which also runs that request's handler.
 *
 * @example
 * const channel = await factory(ctx, params);
 * const outcome = await channel.run(() => handler(args, context));
 */
export interface ModernInputChannel extends InputChannel {
  /**
   * Aborts once the request's answer is decided by the channel (the handler's `ctx.signal` follows
   * it). Absent on a channel that never decides (nothing to combine with the request's signal).
   */
  readonly signal?: AbortSignal;
  /** Run the handler once; resolves as soon as the request's answer is decided. */
  run<T>(handler: () => T | Promise<T>): Promise<RoundOutcome<T>>;
}

/**
 * Makes the channel of one modern request. `params` are the request's own (a retry carries
 * `inputResponses` and `requestState` there; `name`/`arguments` bind the state to the call).
 * Rejects (`-32602`) when the retry's answers or state cannot be used.
 *
 * @example
 * const factory: ModernChannelFactory = async (ctx) => noInputChannel(ctx.method);
 */
export type ModernChannelFactory = (ctx: RequestContext, params: JsonObject) => Promise<ModernInputChannel>;
