/**
 * Client side of `elicitation/create`: route form and URL mode to their handlers, check what the
 * handler answered, and (optionally) fill in the schema's defaults for fields the user left out
 * (SEP-1034: every primitive may carry a `default`).
 */
import type { RequestContext } from '../core/engine/request-context.js';
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type {
  ElicitFormParams,
  ElicitRequestedSchema,
  ElicitResult,
  ElicitUrlParams,
} from '../core/types/elicitation.js';

/**
 * Answers a form-mode elicitation (show the form, return what the user entered).
 *
 * @example
 * const form: FormElicitationHandler = async ({ message, requestedSchema }) => ({ action: 'accept', content: { name: 'Ada' } });
 */
export type FormElicitationHandler = (
  params: ElicitFormParams,
  ctx: RequestContext,
) => ElicitResult | Promise<ElicitResult>;

/**
 * Answers a URL-mode elicitation: show the full URL, ask for consent, open it outside the client.
 * `accept` means the user agreed to open it (no content).
 *
 * @example
 * const url: UrlElicitationHandler = async ({ url }) => (await askUser(`Open ${url}?`)) ? { action: 'accept' } : { action: 'decline' };
 */
export type UrlElicitationHandler = (
  params: ElicitUrlParams,
  ctx: RequestContext,
) => ElicitResult | Promise<ElicitResult>;

/**
 * @example
 * new McpClient(info, { elicitation: { form: askForm, url: openUrl, applyDefaults: true } });
 */
export interface ElicitationOptions {
  form?: FormElicitationHandler;
  url?: UrlElicitationHandler;
  /**
   * On `accept`, fill every field the handler left out with its schema `default`, so a handler
   * may answer `{ action: 'accept', content: {} }` to take all defaults. Default false.
   */
  applyDefaults?: boolean;
}

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

/**
 * Fill missing fields of `content` with the `default`s of `schema.properties` (a new object).
 *
 * @example
 * applyElicitationDefaults({ type: 'object', properties: { n: { type: 'integer', default: 3 } } }, {}); // { n: 3 }
 */
export function applyElicitationDefaults(
  schema: ElicitRequestedSchema,
  content: ElicitResult['content'] = {},
): NonNullable<ElicitResult['content']> {
  const filled = { ...content };
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return filled;
  for (const [key, property] of Object.entries(properties)) {
    if (filled[key] !== undefined || typeof property !== 'object' || property === null) continue;
    if ('default' in property && property.default !== undefined) {
      filled[key] = Array.isArray(property.default) ? [...property.default] : property.default;
    }
  }
  return filled;
}

/**
 * The `elicitation/create` request handler for the configured modes. A mode without a handler is
 * refused with -32602 (the client never declared it).
 */
export function elicitationRequestHandler(
  options: ElicitationOptions,
): (params: JsonObject, ctx: RequestContext) => Promise<JsonObject> {
  return async (params, ctx) => {
    if (typeof params.message !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'elicitation/create: message must be a string');
    }
    const mode = params.mode ?? 'form';
    if (mode === 'url') {
      if (!options.url)
        throw new McpError(ErrorCode.InvalidParams, 'Client does not support URL-mode elicitation');
      if (typeof params.url !== 'string' || typeof params.elicitationId !== 'string') {
        throw new McpError(
          ErrorCode.InvalidParams,
          'elicitation/create: URL mode needs url and elicitationId',
        );
      }
      // URL mode carries no content: the data never passes through the client.
      return stripContent(checkResult(await options.url(params as ElicitUrlParams, ctx)));
    }
    if (mode !== 'form') {
      throw new McpError(ErrorCode.InvalidParams, `Unknown elicitation mode: ${JSON.stringify(mode)}`);
    }
    if (!options.form)
      throw new McpError(ErrorCode.InvalidParams, 'Client does not support form-mode elicitation');
    const schema = params.requestedSchema;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new McpError(ErrorCode.InvalidParams, 'elicitation/create: requestedSchema must be an object');
    }
    const result = checkResult(await options.form(params as ElicitFormParams, ctx));
    if (result.action !== 'accept') return stripContent(result);
    const content = options.applyDefaults
      ? applyElicitationDefaults(schema as ElicitRequestedSchema, result.content)
      : (result.content ?? {});
    return { ...result, content };
  };
}

/** The handler's answer must be a well-formed ElicitResult; a bug there is the client's own. */
function checkResult(result: ElicitResult): ElicitResult {
  if (typeof result !== 'object' || result === null || !ACTIONS.has(result.action)) {
    throw new McpError(
      ErrorCode.InternalError,
      'Elicitation handler returned an invalid result (action must be accept, decline or cancel)',
    );
  }
  const content: unknown = result.content;
  if (content !== undefined && (typeof content !== 'object' || content === null || Array.isArray(content))) {
    throw new McpError(ErrorCode.InternalError, 'Elicitation handler returned content that is not an object');
  }
  for (const [key, value] of Object.entries((content ?? {}) as JsonObject)) {
    const ok =
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      (Array.isArray(value) && value.every((item) => typeof item === 'string'));
    if (!ok) {
      throw new McpError(
        ErrorCode.InternalError,
        `Elicitation handler returned a non-primitive value for ${key}`,
      );
    }
  }
  return result;
}

function stripContent(result: ElicitResult): JsonObject {
  const { content: _content, ...rest } = result;
  return rest;
}
