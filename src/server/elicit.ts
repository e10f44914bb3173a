/**
 * `elicitation/create` in form and URL mode, typed by the schema the handler passes.
 */
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { SchemaInput } from '../core/schema/compile-schema.js';
import type { InferOutput, StandardSchema } from '../core/schema/standard-schema.js';
import type { Meta } from '../core/types/common.js';
import type { ElicitResult, ElicitValue } from '../core/types/elicitation.js';
import { prepareElicitSchema } from './elicit-schema.js';
import { canonicalJson, fingerprint } from './modern/state-encoding.js';
import type { BackChannelOptions, InputChannel } from './input-channel.js';
import type { ServerSession } from './server-session.js';

/**
 * @example
 * const req: ElicitFormRequest<typeof schema> = { message: 'Your name?', schema: z.object({ name: z.string() }) };
 */
export type ElicitFormRequest<S extends SchemaInput> = { message: string; schema: S; _meta?: Meta };

/**
 * What an accepted form yields: the schema's output type, or plain values for raw JSON Schema.
 *
 * @example
 * const schema = z.object({ unit: z.enum(['C', 'F']) });
 * const content: ElicitContent<typeof schema> = { unit: 'C' };
 */
export type ElicitContent<S> =
  S extends StandardSchema<any, any> ? InferOutput<S> : { [key: string]: ElicitValue };

/**
 * The user's answer. `content` is present (and valid) only when accepted.
 *
 * @example
 * const answer = await ctx.elicit({ message: 'Units?', schema });
 * if (answer.action === 'accept') use(answer.content.unit);
 */
export type ElicitOutcome<S> =
  { action: 'accept'; content: ElicitContent<S> } | { action: 'decline' | 'cancel'; content?: undefined };

/** @example const req: ElicitUrlRequest = { message: 'Connect your account', url: 'https://example.com/connect' }; */
export type ElicitUrlRequest = { message: string; url: string; elicitationId?: string; _meta?: Meta };

/**
 * A URL-mode answer. `accept` means the user agreed to open the URL, not that the flow finished;
 * call `complete()` when it has, to send `notifications/elicitation/complete` to that client (legacy
 * era; 2026-07-28 removed the notification, so there `complete()` sends nothing).
 *
 * @example
 * const outcome = await ctx.elicitUrl({ message: 'Sign in to continue', url: 'https://example.com/login' });
 * if (outcome.action === 'accept') onLoginFinished(() => void outcome.complete());
 */
export type ElicitUrlOutcome = {
  action: ElicitResult['action'];
  elicitationId: string;
  complete: () => Promise<void>;
};

function actionOf(result: JsonObject): ElicitResult['action'] {
  const action = result.action;
  if (action === 'accept' || action === 'decline' || action === 'cancel') return action;
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid elicitation action from the client: ${String(action)}`,
  );
}

/** Form mode. Throws if the client's accepted content does not match the schema. */
export async function elicitForm<S extends SchemaInput>(
  channel: InputChannel,
  request: ElicitFormRequest<S>,
  options?: BackChannelOptions,
): Promise<ElicitOutcome<S>> {
  const { requestedSchema, compiled } = prepareElicitSchema(request.schema);
  const params: JsonObject = { mode: 'form', message: request.message, requestedSchema };
  if (request._meta) params._meta = request._meta;
  const result = await channel.request('elicitation/create', params, options);
  const action = actionOf(result);
  if (action !== 'accept') return { action };
  const checked = await compiled.validate(result.content ?? {});
  if (!checked.ok) {
    const error = new McpError(
      ErrorCode.InvalidParams,
      `The elicitation answer does not match the requested schema: ${checked.message}`,
    );
    channel.rejectAnswer?.(error);
    throw error;
  }
  return { action, content: checked.value as ElicitContent<S> };
}

/**
 * URL mode. Legacy (2025-11-25): the request carries an `elicitationId` (the caller's, or a random
 * one) and `complete()` sends `notifications/elicitation/complete`. 2026-07-28 (`notifiesCompletion`
 * false) removed
 * both: the request carries no id, `complete()` sends nothing (the client learns the outcome by
 * retrying), and the id returned is the caller's or one derived from the question, so it is the
 * same on every run of the handler (it runs again on each retry).
 */
export async function elicitUrl(
  channel: InputChannel,
  session: ServerSession,
  request: ElicitUrlRequest,
  options?: BackChannelOptions,
  /** Legacy: the id goes on the wire and `complete()` notifies; false in 2026-07-28. */
  notifiesCompletion = true,
): Promise<ElicitUrlOutcome> {
  const modern = !notifiesCompletion;
  const params: JsonObject = { mode: 'url', message: request.message, url: request.url };
  const elicitationId =
    request.elicitationId ??
    (modern
      ? `url-${fingerprint(canonicalJson({ message: request.message, url: request.url }))}`
      : crypto.randomUUID());
  if (!modern) params.elicitationId = elicitationId;
  if (request._meta) params._meta = request._meta;
  const result = await channel.request('elicitation/create', params, options);
  return {
    action: actionOf(result),
    elicitationId,
    complete: modern
      ? () => Promise.resolve()
      : // Session-level, not request-level: the out-of-band flow usually ends after the tool returned.
        () => session.notify('notifications/elicitation/complete', { elicitationId }),
  };
}
