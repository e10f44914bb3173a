/**
 * `keel-mcp/core`: what both sides share. The error hierarchy and its codes, the `Transport`
 * contract (what a custom transport implements), the engine (`Connection`, `RequestContext`),
 * the protocol versions, and the MCP protocol types. Every name is listed on purpose
 * (docs/entry-points.md says how they are chosen); api/keel-mcp.core.api.md records the surface.
 */
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
} from './error-classes.js';
export { httpStatusForCode } from './errors.js';
export {
  extensionSettings,
  isExtensionId,
  withExtension,
  type Extension,
  type ExtensionMap,
} from './extensions.js';
// MCP Apps (io.modelcontextprotocol/ui) wire constants and metadata shapes: docs/apps.md.
export {
  APP_MIME_TYPE,
  APPS_EXTENSION_ID,
  LEGACY_RESOURCE_URI_KEY,
  type AppCsp,
  type AppPermissions,
  type AppResourceMeta,
  type AppToolMeta,
  type AppVisibility,
} from './apps-wire.js';
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
} from './jsonrpc.js';
export type { MessageInfo, PollableIterator, SendOptions, Transport } from './transport.js';
export type {
  AuthChallenge,
  AuthInfo,
  AuthorizationRedirect,
  HttpAuthProvider,
  HttpAuthRequest,
  TokenStore,
} from './auth.js';
export {
  Connection,
  type ConnectionOptions,
  type Logger,
  type NotificationHandler,
  type RequestHandler,
} from './engine/connection.js';
export { RequestContext } from './engine/request-context.js';
export {
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type Progress,
  type RequestOptions,
} from './engine/outbound.js';
export {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from './protocol-version.js';
export {
  MODERN_PROTOCOL_VERSIONS,
  type CacheHint,
  type CacheScope,
  type DiscoverResult,
  type ModernProtocolVersion,
  type ModernRequestMeta,
  type ResultType,
  type UnsupportedVersionData,
} from './types/modern.js';
export type { ClientCapabilities, ServerCapabilities } from './types/capabilities.js';
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
} from './types/common.js';
export type {
  CompleteParams,
  CompleteResult,
  PromptReference,
  ResourceTemplateReference,
} from './types/completion.js';
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
} from './types/content.js';
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
} from './types/elicitation.js';
export { LOGGING_LEVELS, type LoggingLevel, type LoggingMessageParams } from './types/logging.js';
export type {
  GetPromptParams,
  GetPromptResult,
  ListPromptsResult,
  Prompt,
  PromptArgument,
  PromptMessage,
} from './types/prompts.js';
export type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceRequestParams,
  ResourceTemplate,
  ResourceUpdatedParams,
} from './types/resources.js';
export type { ListRootsResult, Root } from './types/roots.js';
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
} from './types/sampling.js';
export type {
  SubscriptionFilter,
  SubscriptionsAcknowledgedParams,
  SubscriptionsListenResult,
} from './types/subscriptions.js';
export type {
  CallToolParams,
  CallToolResult,
  JsonSchemaObject,
  ListToolsResult,
  Tool,
  ToolAnnotations,
  ToolExecution,
} from './types/tools.js';
