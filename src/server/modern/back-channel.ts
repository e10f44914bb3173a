/**
 * The seam for the modern back-channel. In the legacy era `ctx.elicit`, `ctx.createMessage` and
 * `ctx.listRoots` are server→client requests; in 2026-07-28 they become `input_required` rounds
 * (multi round-trip requests). The McpServer picks the channel per request: legacy requests get the
 * nested-request channel, modern ones a channel from a {@link ModernChannelFactory}.
 *
 * A modern channel runs the handler ({@link ModernInputChannel.run}) and decides the request's
 * answer as soon as it is known: the handler's value, or an `input_required` round (or a `-32602`
 * for a bad answer). Once a round is decided the request is answered at once and the handler's
 * signal aborts; the handler is not waited for (a handler that catches the rejection and carries
 * on could otherwise hold the answer back indefinitely), and whatever it returns afterwards is
 * discarded, so nothing is written twice.
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { INPUT_REQUIRED_METHODS } from '../../core/types/mrtr.js';
import type { ModernChannelFactory, ModernInputChannel } from './channel-types.js';
import { InputRounds, type InputRoundsOptions, type RoundOutcome } from './input-rounds.js';

export type { ModernChannelFactory, ModernInputChannel } from './channel-types.js';

/**
 * The channel of a modern request whose method cannot be answered with `input_required` (spec:
 * "Supported Requests" lists only tools/call, prompts/get, resources/read): a back-channel call
 * rejects with `-32603` saying so, and the handler decides the answer as usual.
 *
 * @example
 * const channel = noInputChannel('completion/complete');
 * await channel.request('roots/list', {}); // rejects McpError -32603
 */
export function noInputChannel(method: string): ModernInputChannel {
  return {
    request(): Promise<JsonObject> {
      return Promise.reject(
        new McpError(
          ErrorCode.InternalError,
          `A ${method} handler cannot ask the client for input in the 2026-07-28 era: only tools/call, prompts/get and resources/read can`,
        ),
      );
    },
    async run<T>(handler: () => T | Promise<T>): Promise<RoundOutcome<T>> {
      return { type: 'complete', value: await handler() };
    },
  };
}

/**
 * A stable string naming who sent a request, from what the host's authentication attached
 * (`ctx.info.authInfo`): the string itself, or the first string among `subject`, `sub`, `userId`,
 * `clientId` (also looked up in `extra`). When an issuer is named (`issuer` or `iss`, also in
 * `extra`), the principal is qualified by it: the same `sub` at two authorization servers is two
 * callers. Undefined when there is none: a state is then bound to the request only. The bearer
 * token is never used (it changes when it is refreshed).
 *
 * @example
 * principalOf({ token: 't', clientId: 'app', extra: { sub: 'user-42' } }); // 'sub:user-42'
 * principalOf({ subject: 'alice', issuer: 'https://as.example', scopes: [] }); // 'iss:"https://as.example" sub:alice'
 * principalOf(undefined); // undefined
 */
export function principalOf(authInfo: unknown): string | undefined {
  if (typeof authInfo === 'string') return authInfo === '' ? undefined : `id:${authInfo}`;
  if (typeof authInfo !== 'object' || authInfo === null) return undefined;
  const record = authInfo as { [key: string]: unknown };
  const extra = record.extra;
  const sources = [record, typeof extra === 'object' && extra !== null ? (extra as typeof record) : {}];
  const issuer = firstString(sources, ['issuer', 'iss']);
  // JSON-quoted: an issuer cannot be crafted to run into the identity part.
  const qualifier = issuer === undefined ? '' : `iss:${JSON.stringify(issuer)} `;
  for (const field of ['subject', 'sub', 'userId', 'clientId']) {
    const value = firstString(sources, [field]);
    if (value !== undefined) return `${qualifier}${field === 'subject' ? 'sub' : field}:${value}`;
  }
  return undefined;
}

function firstString(
  sources: readonly { readonly [key: string]: unknown }[],
  fields: readonly string[],
): string | undefined {
  for (const field of fields) {
    for (const source of sources) {
      const value = source[field];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return undefined;
}

/**
 * The McpServer's default factory: multi round-trip requests with signed `requestState`
 * ({@link InputRounds}) for tools/call, prompts/get and resources/read; {@link noInputChannel}
 * for every other method. The principal comes from `ctx.info.authInfo` ({@link principalOf}).
 *
 * @example
 * server.modernChannel = inputRoundsFactory({ codec: new RequestStateCodec({ keys }), maxRounds: 4 });
 */
export function inputRoundsFactory(options: InputRoundsOptions): ModernChannelFactory {
  return async (ctx, params) => {
    const method = ctx.method;
    if (!INPUT_REQUIRED_METHODS.has(method)) return noInputChannel(method);
    return InputRounds.open(
      // The context itself, not `ctx.signal`: reading that makes an AbortController per request.
      { method, params, principal: principalOf(ctx.info?.authInfo), abortSource: ctx },
      options,
    );
  };
}
