/**
 * The seam for the modern back-channel. In the legacy era `ctx.elicit`, `ctx.createMessage` and
 * `ctx.listRoots` are server→client requests; in 2026-07-28 they become `input_required` rounds
 * (multi round-trip requests). The McpServer picks the channel per request: legacy requests get the
 * nested-request channel, modern ones a channel from a {@link ModernChannelFactory}.
 *
 * A modern channel may decide the request's answer itself ({@link ModernInputChannel.outcome}):
 * once it has, whatever the handler does afterwards (a `try/catch` that swallows the rejection, a
 * fallback result) is ignored. Until multi round-trip is wired, {@link notWiredChannel} decides a
 * clear `-32603` for any back-channel call, so a handler never waits for an answer that cannot come.
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { InputChannel } from '../tool-context.js';
import type { ModernRequest } from './modern-request.js';

/**
 * What the channel decided the request answers, overriding the handler.
 *
 * @example
 * const outcome: ChannelOutcome = { error: new McpError(ErrorCode.InternalError, 'no rounds here') };
 */
export type ChannelOutcome = { result: JsonObject } | { error: unknown };

/**
 * A back-channel for one modern request.
 *
 * @example
 * const channel: ModernInputChannel = {
 *   outcome: undefined,
 *   request: () => Promise.reject(new Error('no input here')),
 * };
 */
export interface ModernInputChannel extends InputChannel {
  /** Set once the channel has decided the request's answer. */
  readonly outcome: ChannelOutcome | undefined;
}

/**
 * Makes the channel of one modern request. `params` are the request's own (a retry carries
 * `inputResponses` and `requestState` there; `name`/`arguments` bind the state to the call).
 * The request is answered once the handler settled; the channel's outcome then wins.
 *
 * @example
 * const factory: ModernChannelFactory = () => notWiredChannel();
 */
export type ModernChannelFactory = (
  ctx: RequestContext,
  modern: ModernRequest,
  params: JsonObject,
) => ModernInputChannel;

/**
 * The channel used until multi round-trip requests are wired: any call decides `-32603` with a
 * message saying so.
 *
 * @example
 * const channel = notWiredChannel();
 * await channel.request('roots/list', {}).catch(() => channel.outcome); // { error: McpError(-32603) }
 */
export function notWiredChannel(): ModernInputChannel {
  let outcome: ChannelOutcome | undefined;
  return {
    get outcome() {
      return outcome;
    },
    request(method: string): Promise<JsonObject> {
      const error = new McpError(
        ErrorCode.InternalError,
        `${method} from a 2026-07-28 request needs multi round-trip requests (input_required), which this server does not support yet`,
      );
      outcome ??= { error };
      return Promise.reject(error);
    },
  };
}
