/**
 * The client half of 2026-07-28 multi round-trip requests (spec: basic/patterns/mrtr). A result
 * with `resultType: 'input_required'` is answered by the same handlers the legacy era calls for
 * server→client requests, and the request is sent again (a new JSON-RPC id) with
 * `inputResponses` and the `requestState` echoed verbatim, until the result is complete. The
 * caller sees only the final result.
 */
import type { RequestHandler } from '../../core/engine/connection-types.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import { ErrorCode, McpError, RequestAbortedError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { RESULT_TYPE_INPUT_REQUIRED } from '../../core/types/mrtr.js';
import { InputRoundLimitError, ProtocolViolationError } from '../errors.js';
import { inputContext } from './input-context.js';

/**
 * Default number of `input_required` answers one request may get before the client gives up.
 *
 * @example
 * new McpClient(info, { maxInputRounds: DEFAULT_MAX_INPUT_ROUNDS * 2 });
 */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;

const INPUT_METHODS: ReadonlySet<string> = new Set([
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
]);

/**
 * What the loop needs from its client.
 *
 * @example
 * const host: InputLoopHost = { send: (m, p, o) => client.modernSend(m, p, o), handler: (m) => table.get(m), maxRounds: 8 };
 */
export interface InputLoopHost {
  /** One round trip (the modern `_meta` is the sender's business). */
  send(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions | undefined,
  ): Promise<JsonObject>;
  /** The client's handler for a server→client method, if one is configured. */
  handler(method: string): RequestHandler | undefined;
  maxRounds: number;
  /** Aborts (reason: the connection-closed error) when the connection is gone. */
  closed?: AbortSignal;
}

/**
 * Send `method` and run its `input_required` rounds to the end.
 *
 * @example
 * const result = await requestWithInput(host, 'tools/call', { name: 'greet', arguments: {} }, { signal });
 */
export async function requestWithInput(
  host: InputLoopHost,
  method: string,
  params: JsonObject | undefined,
  options: RequestOptions | undefined,
): Promise<JsonObject> {
  let next = params;
  for (let round = 0; ; round++) {
    const result = await host.send(method, next, options);
    // An absent resultType is "complete" (schema: Result.resultType).
    if (result.resultType !== RESULT_TYPE_INPUT_REQUIRED) return result;
    if (round >= host.maxRounds) throw new InputRoundLimitError(method, host.maxRounds);
    const { inputRequests, requestState } = result;
    if (requestState !== undefined && typeof requestState !== 'string') {
      throw new ProtocolViolationError(`${method}: input_required with a requestState that is not a string`);
    }
    const retry: JsonObject = { ...params };
    if (inputRequests !== undefined)
      retry.inputResponses = await answerAll(host, method, inputRequests, options?.signal);
    // Echoed exactly as received, and only when the server sent one (spec: client requirements).
    if (requestState !== undefined) retry.requestState = requestState;
    next = retry;
  }
}

/**
 * Answer every input request of one round, at once (as a legacy server's requests would be).
 * Also answers the `inputRequests` of a 2026-07-28 task (tasks/modern-task-wire.ts).
 *
 * @example
 * const inputResponses = await answerAll(host, 'tasks/get', task.inputRequests, signal);
 */
export async function answerAll(
  host: InputLoopHost,
  method: string,
  inputRequests: unknown,
  callerSignal: AbortSignal | undefined,
): Promise<JsonObject> {
  if (!isJsonObject(inputRequests)) {
    throw new ProtocolViolationError(`${method}: input_required with inputRequests that is not an object`);
  }
  if (callerSignal?.aborted) throw new RequestAbortedError({ cause: callerSignal.reason });
  if (host.closed?.aborted) throw host.closed.reason;
  // One failure ends the round: the other handlers (open dialogs, model calls) are aborted, as
  // they are when the caller gives up or the connection goes (nobody could use their answers).
  const round = new AbortController();
  const onCallerAbort = (): void => round.abort(callerSignal?.reason);
  const onClosed = (): void => round.abort(host.closed?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  host.closed?.addEventListener('abort', onClosed, { once: true });
  const aborted = new Promise<never>((_resolve, reject) => {
    // The reason is the failing handler's error or the caller's abort reason (mapped below).
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    round.signal.addEventListener('abort', () => reject(round.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const entries = Object.entries(inputRequests).map(async ([key, request]) => {
      try {
        return [key, await answerOne(host, method, key, request, round.signal)] as const;
      } catch (error) {
        round.abort(error);
        throw error;
      }
    });
    const answers = await Promise.race([Promise.all(entries), aborted]);
    return Object.fromEntries(answers);
  } catch (error) {
    if (callerSignal?.aborted) throw new RequestAbortedError({ cause: callerSignal.reason });
    if (host.closed?.aborted) throw host.closed.reason;
    throw error;
  } finally {
    callerSignal?.removeEventListener('abort', onCallerAbort);
    host.closed?.removeEventListener('abort', onClosed);
  }
}

async function answerOne(
  host: InputLoopHost,
  method: string,
  key: string,
  request: unknown,
  signal: AbortSignal,
): Promise<JsonObject> {
  if (!isJsonObject(request) || typeof request.method !== 'string' || !INPUT_METHODS.has(request.method)) {
    throw new ProtocolViolationError(
      `${method}: input request ${JSON.stringify(key)} is not an elicitation, sampling or roots request`,
    );
  }
  const inputMethod = request.method;
  let params = isJsonObject(request.params) ? request.params : {};
  // 2026-07-28 URL elicitations carry no elicitationId: the handler gets the input key instead.
  if (inputMethod === 'elicitation/create' && params.mode === 'url' && params.elicitationId === undefined)
    params = { ...params, elicitationId: key };
  const handler = host.handler(inputMethod);
  const { ctx, end } = inputContext(key, inputMethod, signal);
  try {
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${inputMethod}`);
    return await handler(params, ctx);
  } catch (error) {
    if (signal.aborted) throw error;
    const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
    const message = error instanceof Error ? error.message : String(error);
    throw new McpError(
      code,
      `${method}: the server asked for input the client could not give (${JSON.stringify(key)}, ${inputMethod}): ${message}`,
      { inputKey: key, method: inputMethod },
    );
  } finally {
    end();
  }
}
