/**
 * `keel-mcp`: where a newcomer starts. Everything of `keel-mcp/core` (the error hierarchy, the
 * `Transport` contract, the MCP protocol types) plus the high-level server and client with the
 * names their first programs use. Transports are not here: stdio (Node only) is in
 * `keel-mcp/stdio`, Streamable HTTP in `keel-mcp/http`, so this entry stays runtime-neutral (no
 * `node:` import: it loads on Bun, Deno and Cloudflare Workers) and carries no transport code.
 * The classes are the other entries' own (one identity for `instanceof`).
 */
export { McpServer, type McpServerOptions } from './server/mcp-server.js';
export { ToolContext } from './server/tool-context.js';
export { toolError } from './server/tool-call.js';
export { resourceNotFound } from './server/resource-not-found.js';
export type { ToolConfig } from './server/tool-types.js';
export type { ResourceConfig } from './server/resource-types.js';
export type { PromptConfig } from './server/prompt-types.js';
export { McpClient, type CallToolOptions } from './client/mcp-client.js';
export type { McpClientOptions } from './client/mcp-client-options.js';
// Below: keel-mcp/core, name for name (test/package/api-report.test.ts checks that it stays so).
export {
  AuthorizationError,
  CancelledByPeerError,
  ConnectionClosedError,
  ContextClosedError,
  ErrorCode,
  KeelError,
  LocalError,
  McpError,
  MissingClientCapabilityError,
  NotConnectedError,
  RequestAbortedError,
  RequestTimeoutError,
  SkillVerificationError,
  StoreUnavailableError,
  type AuthorizationFailure,
  type ErrorCodeValue,
  type SkillCheck,
} from './core/error-classes.js';
export { httpStatusForCode } from './core/errors.js';
export {
  extensionSettings,
  isExtensionId,
  withExtension,
  type Extension,
  type ExtensionMap,
} from './core/extensions.js';
export {
  APP_MIME_TYPE,
  APPS_EXTENSION_ID,
  LEGACY_RESOURCE_URI_KEY,
  type AppCsp,
  type AppPermissions,
  type AppResourceMeta,
  type AppToolMeta,
  type AppVisibility,
} from './core/apps-wire.js';
export type {
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
  RequestId,
} from './core/jsonrpc.js';
export type { MessageInfo, PollableIterator, SendOptions, Transport } from './core/transport.js';
export type {
  AuthChallenge,
  AuthInfo,
  AuthorizationRedirect,
  HttpAuthProvider,
  HttpAuthRequest,
  TokenStore,
} from './core/auth.js';
export {
  Connection,
  type ConnectionOptions,
  type Logger,
  type NotificationHandler,
  type RequestHandler,
} from './core/engine/connection.js';
export { RequestContext } from './core/engine/request-context.js';
export {
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type Progress,
  type RequestOptions,
} from './core/engine/outbound.js';
export {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from './core/protocol-version.js';
export {
  MODERN_PROTOCOL_VERSIONS,
  type CacheHint,
  type CacheScope,
  type DiscoverResult,
  type ModernProtocolVersion,
  type ModernRequestMeta,
  type ResultType,
  type UnsupportedVersionData,
} from './core/types/modern.js';
export type { ClientCapabilities, ServerCapabilities } from './core/types/capabilities.js';
export type {
  Annotations,
  Cursor,
  Icon,
  Implementation,
  Meta,
  PaginatedParams,
  PaginatedResult,
  ProgressToken,
  Role,
} from './core/types/common.js';
export type {
  CompleteParams,
  CompleteResult,
  PromptReference,
  ResourceTemplateReference,
} from './core/types/completion.js';
export type {
  AudioContent,
  BlobResourceContents,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  TextContent,
  TextResourceContents,
} from './core/types/content.js';
export type {
  BooleanSchema,
  ElicitationCompleteParams,
  ElicitFormParams,
  ElicitParams,
  ElicitRequestedSchema,
  ElicitResult,
  ElicitUrlParams,
  ElicitValue,
  EnumSchema,
  LegacyTitledEnumSchema,
  NumberSchema,
  PrimitiveSchemaDefinition,
  StringSchema,
  TitledMultiSelectEnumSchema,
  TitledSingleSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  UntitledSingleSelectEnumSchema,
} from './core/types/elicitation.js';
export { LOGGING_LEVELS, type LoggingLevel, type LoggingMessageParams } from './core/types/logging.js';
export type {
  GetPromptParams,
  GetPromptResult,
  ListPromptsResult,
  Prompt,
  PromptArgument,
  PromptMessage,
} from './core/types/prompts.js';
export type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceRequestParams,
  ResourceTemplate,
  ResourceUpdatedParams,
} from './core/types/resources.js';
export type { ListRootsResult, Root } from './core/types/roots.js';
export {
  samplingText,
  type CreateMessageParams,
  type CreateMessageResult,
  type ModelPreferences,
  type SamplingContent,
  type SamplingMessage,
  type ToolChoice,
  type ToolResultContent,
  type ToolUseContent,
} from './core/types/sampling.js';
export type {
  SubscriptionFilter,
  SubscriptionsAcknowledgedParams,
  SubscriptionsListenResult,
} from './core/types/subscriptions.js';
export type {
  CallToolParams,
  CallToolResult,
  JsonSchemaObject,
  ListToolsResult,
  Tool,
  ToolAnnotations,
  ToolExecution,
} from './core/types/tools.js';
