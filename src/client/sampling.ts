/**
 * Client side of `sampling/createMessage`: check the server's request, run the user's handler
 * (the one place that talks to an LLM), check its answer.
 */
import type { RequestContext } from '../core/engine/request-context.js';
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { CreateMessageParams, CreateMessageResult } from '../core/types/sampling.js';

/**
 * Produces a model response for the server. `ctx.signal` aborts if the server cancels or the
 * connection closes.
 *
 * @example
 * const sample: SamplingHandler = async ({ messages, maxTokens }, ctx) =>
 *   ({ role: 'assistant', content: { type: 'text', text: await llm(messages, maxTokens, ctx.signal) }, model: 'my-llm' });
 */
export type SamplingHandler = (
  params: CreateMessageParams,
  ctx: RequestContext,
) => CreateMessageResult | Promise<CreateMessageResult>;

/**
 * @example
 * new McpClient(info, { sampling: { handler: sample, tools: true } });
 */
export interface SamplingOptions {
  handler: SamplingHandler;
  /** Declare `sampling.tools`: the server may pass `tools`/`toolChoice` (2025-11-25). */
  tools?: boolean;
  /** Declare `sampling.context`: the server may ask for `includeContext` other than `none`. */
  context?: boolean;
}

/** Accept a bare handler or full options. */
export function toSamplingOptions(value: SamplingHandler | SamplingOptions): SamplingOptions {
  return typeof value === 'function' ? { handler: value } : value;
}

/** The `sampling/createMessage` request handler. */
export function samplingRequestHandler(
  options: SamplingOptions,
): (params: JsonObject, ctx: RequestContext) => Promise<JsonObject> {
  return async (params, ctx) => {
    if (!Array.isArray(params.messages)) {
      throw new McpError(ErrorCode.InvalidParams, 'sampling/createMessage: messages must be an array');
    }
    if (typeof params.maxTokens !== 'number') {
      throw new McpError(ErrorCode.InvalidParams, 'sampling/createMessage: maxTokens must be a number');
    }
    if ((params.tools !== undefined || params.toolChoice !== undefined) && !options.tools) {
      throw new McpError(
        ErrorCode.InvalidParams,
        'Client did not declare sampling.tools; tools are not allowed',
      );
    }
    const result = await options.handler(params as CreateMessageParams, ctx);
    if (
      typeof result !== 'object' ||
      result === null ||
      typeof result.model !== 'string' ||
      (result.role !== 'assistant' && result.role !== 'user') ||
      typeof result.content !== 'object' ||
      result.content === null
    ) {
      throw new McpError(
        ErrorCode.InternalError,
        'Sampling handler returned an invalid result (needs role, content, model)',
      );
    }
    return result;
  };
}
