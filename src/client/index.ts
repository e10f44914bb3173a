export { Client } from './client.js';
export type { ClientOptions } from './client-options.js';
export {
  McpClient,
  type CallOptions,
  type CallToolOptions,
  type McpClientConnectOptions,
  type TypedCallToolResult,
} from './mcp-client.js';
export type { CallToolOutputOptions, ValidatedCallToolResult } from './tool-output.js';
export { McpClientBase } from './mcp-client-base.js';
export type { ConnectOptions, McpClientOptions } from './mcp-client-options.js';
export type {
  McpClientEventName,
  McpClientEvents,
  McpClientListener,
  McpClientListenerError,
} from './client-events.js';
export {
  applyElicitationDefaults,
  type ElicitationOptions,
  type FormElicitationHandler,
  type UrlElicitationHandler,
} from './elicitation.js';
export type { SamplingHandler, SamplingOptions } from './sampling.js';
// Also in keel-mcp/core, beside CreateMessageResult (a server reads what ctx.createMessage returns).
export { samplingText } from '../core/types/sampling.js';
export type { RootsSource } from './roots.js';
export {
  EraDetectionError,
  InputRoundLimitError,
  ModernOnlyError,
  NoSharedVersionError,
  NotModernServerError,
  ProtocolViolationError,
  RemovedInModernEraError,
  SubscriptionOverflowError,
  ToolOutputValidationError,
} from './errors.js';
export { clearEraCache, MAX_CACHED_ERAS, type ClientEra, type EraOption } from './modern/era.js';
export { DEFAULT_DISCOVER_TIMEOUT_MS } from './modern/detect-era.js';
export { DEFAULT_MAX_INPUT_ROUNDS } from './modern/input-loop.js';
export {
  mirroredParams,
  paramHeaders,
  type MirroredParam,
  type MirroredParams,
} from './modern/param-headers.js';
export type { SessionReset } from './session-renewal.js';
export { DEFAULT_MAX_PAGES, paginate, type PaginateOptions } from './pagination.js';
export {
  defaultJsonSchemaValidator,
  type CompiledSchema,
  type JsonSchemaValidator,
} from './json-schema-validator.js';
export {
  DEFAULT_MAX_BUFFERED,
  listen,
  Subscription,
  type ListenHost,
  type ListenOptions,
  type SubscriptionEnd,
  type SubscriptionNotification,
} from './subscriptions.js';
export * from './auth/index.js';
// The error classes a user catches, from this entry too (one class identity with keel-mcp/core's),
// so a project needs no extra import path for them.
export * from '../core/error-classes.js';
