/**
 * The seam between a handler's back-channel calls (`ctx.elicit`, `ctx.createMessage`,
 * `ctx.listRoots`) and the era that carries them: a nested server→client request in the legacy
 * era, an `input_required` round in 2026-07-28 (modern/input-rounds.ts). The context, elicitation
 * and both channels import it from here, one way.
 */
import type { RequestOptions } from '../core/engine/outbound.js';
import type { McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';

/**
 * How back-channel requests reach the client (legacy: a nested request; modern: an input round).
 *
 * @example
 * // A channel that answers every roots/list itself (tests):
 * const channel: InputChannel = { request: async () => ({ roots: [] }) };
 */
export interface InputChannel {
  request(method: string, params: JsonObject, options?: BackChannelOptions): Promise<JsonObject>;
  /**
   * The caller found an answer invalid (e.g. elicited content that does not match the schema).
   * A modern channel ends the request with `error` whatever the handler does next; legacy: unused.
   */
  rejectAnswer?(error: McpError): void;
  /**
   * Aborts once the channel decided the request's answer (modern: an `input_required` round was
   * sent); the handler's `ctx.signal` follows it. Absent for the legacy channel.
   */
  readonly signal?: AbortSignal;
}

/**
 * Options of a back-channel call. The call is always tied to the handler's own signal as well.
 *
 * @example
 * const { roots } = await ctx.listRoots({ timeoutMs: 5_000 });
 */
export type BackChannelOptions = Pick<RequestOptions, 'signal' | 'timeoutMs' | 'maxTotalTimeoutMs'> & {
  /**
   * 2026-07-28: the key of this request in the `input_required` round (`inputRequests`), unique
   * within the handler. Default: `elicit-N` / `sample-N` / `roots-N` (N counts the handler's calls).
   * Ignored in the legacy era.
   */
  inputKey?: string;
  /**
   * For a `tools/call` that becomes a task (2026-07-28 tasks extension): ask on the call itself,
   * as an `input_required` round, before the task is created, instead of in the task's
   * `input_required` state. Only questions asked before the handler first waits on something
   * else count; later ones are the task's. Ignored when the call is no task, and in the legacy era.
   */
  beforeTask?: boolean;
};
