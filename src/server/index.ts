export {
  Server,
  type Connectable,
  type Implementation,
  type ServerOptions,
  type ServerRequestHandler,
  type ServerNotificationHandler,
} from './server.js';
export { methodNotFound } from './method-not-found.js';
export { ServerSession, type HandlerSession } from './server-session.js';
export {
  logHandlerFailureToStderr,
  logHandlerFailureWithStack,
  type HandlerFailure,
  type ServerErrorHandler,
} from './handler-errors.js';
export { McpServer, type McpServerOptions } from './mcp-server.js';
export type { ListKind } from './list-changed.js';
export { MAX_FANOUT_MESSAGE_BYTES, type FanoutLink, type FanoutMembership } from './fanout.js';
export { ToolContext, type HandlerContext } from './tool-context.js';
export type { BackChannelOptions, InputChannel } from './input-channel.js';
export type {
  ElicitFormRequest,
  ElicitOutcome,
  ElicitContent,
  ElicitUrlRequest,
  ElicitUrlOutcome,
} from './elicit.js';
export type { RegisteredHandle } from './registry.js';
export type {
  ToolConfig,
  ToolHandler,
  ToolArgs,
  ToolReturn,
  ToolStructured,
  ToolUpdate,
  RegisteredTool,
} from './tool-types.js';
export type {
  ResourceConfig,
  ResourceReader,
  ResourceReturn,
  TemplateReader,
  TemplateOptions,
  Completer,
  RegisteredResource,
  RegisteredTemplate,
  ResourceUpdate,
  TemplateUpdate,
} from './resource-types.js';
export type {
  PromptConfig,
  PromptHandler,
  PromptArgs,
  PromptArgsInput,
  PromptReturn,
  PromptUpdate,
  RegisteredPrompt,
} from './prompt-types.js';
export { UriTemplate, type TemplateVariables } from './uri-template.js';
export { DEFAULT_PAGE_SIZE } from './pagination.js';
export { toolError } from './tool-call.js';
export { resourceNotFound } from './resource-not-found.js';
// From the schema modules themselves, not core/schema/index.js, so the server entry exports only
// what users of the server need.
export { registerJsonSchemaConverter, type JsonSchemaConverter } from '../core/schema/to-json-schema.js';
export {
  isStandardSchema,
  type StandardSchema,
  type InferInput,
  type InferOutput,
} from '../core/schema/standard-schema.js';
export type { SchemaInput } from '../core/schema/compile-schema.js';
export type { CachingOptions, CacheHint, CacheScope } from './modern/caching.js';
export type { ModernRequest } from './modern/modern-request.js';
export {
  InputRequiredSignal,
  RequestStateError,
  SwallowedInputRoundError,
  TooManyInputRoundsError,
  type RequestStateFailure,
} from './modern/mrtr-errors.js';
export type { RequestStateKey, RequestStateOptions, RequestStateSecret } from './modern/request-state.js';
export * from './auth/index.js';
// The error classes a user catches, from this entry too (one class identity with keel-mcp/core's),
// so a project needs no extra import path for them.
// Sampling answers come back to tools: the helper for their text belongs where they are used.
export { samplingText } from '../core/types/sampling.js';
export * from '../core/error-classes.js';
