/**
 * `keel-mcp/client`: `McpClient` and the low-level `Client`, their options, events and results,
 * subscriptions, OAuth for the HTTP transport, and the errors of these features. The shared error
 * hierarchy and the MCP protocol types come from `keel-mcp/core`; of it, this entry also exports
 * `McpError` and `ErrorCode`, what a call rejects with when the server answers an error. Every name
 * is listed on purpose (docs/entry-points.md says how they are chosen).
 */
export { McpError, ErrorCode } from '../core/error-classes.js';
export {
  McpClient,
  type CallOptions,
  type CallToolOptions,
  type McpClientConnectOptions,
  type TypedCallToolResult,
} from './mcp-client.js';
export type { ConnectOptions, McpClientOptions } from './mcp-client-options.js';
export type { CallToolOutputOptions, ValidatedCallToolResult } from './tool-output.js';
export type {
  McpClientEventName,
  McpClientEvents,
  McpClientListener,
  McpClientListenerError,
} from './client-events.js';
export { Client } from './client.js';
// MCP Apps (io.modelcontextprotocol/ui, SEP-1865) for hosts: docs/apps.md.
export {
  appsSupport,
  listAppResources,
  modelTools,
  readApp,
  toolUi,
  type AppDocument,
  type ToolUi,
} from './apps/index.js';
export type { ClientCall, ClientInterceptor, ClientNext } from './interceptors.js';
export { ResultCache, type ResultCacheOptions } from './cache/result-cache.js';
export type { CacheMode, ClientCacheOptions } from './cache/cached-results.js';
export type { ClientOptions } from './client-options.js';
export {
  applyElicitationDefaults,
  type ElicitationOptions,
  type FormElicitationHandler,
  type UrlElicitationHandler,
} from './elicitation.js';
export type { SamplingHandler, SamplingOptions } from './sampling.js';
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
  TaskCancelledError,
  TasksNotSupportedError,
  ToolOutputValidationError,
} from './errors.js';
export { ToolTask } from './tasks/tool-task.js';
export type { TaskFollowOptions, TaskListPage, ToolTaskOptions } from './tasks/client-tasks.js';
export {
  DEFAULT_POLL_INTERVAL_MS,
  MAX_POLL_INTERVAL_MS,
  MIN_POLL_INTERVAL_MS,
  type TaskInfo,
  type TaskStatus,
} from './tasks/task-info.js';
export { clearEraCache, MAX_CACHED_ERAS, type ClientEra, type EraOption } from './modern/era.js';
export { DEFAULT_DISCOVER_TIMEOUT_MS } from './modern/detect-era.js';
export { DEFAULT_MAX_INPUT_ROUNDS } from './modern/input-loop.js';
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
// OAuth for the HTTP client transport (docs/auth-client.md). `AuthorizationError` is what every
// failure of it is; it lives in core's hierarchy because the Node adapters throw it too.
export { AuthorizationError, type AuthorizationFailure } from '../core/error-classes.js';
export { OAuthClientProvider } from './auth/provider.js';
export type { OAuthClientProviderOptions } from './auth/provider-options.js';
export { headlessRedirect, type HeadlessRedirectOptions } from './auth/headless-redirect.js';
export { MemoryTokenStore } from './auth/store.js';
export type { StoredTokens } from './auth/tokens.js';
export type { ClientMetadata, PreRegisteredCredentials } from './auth/registration.js';
export { secretAuthMethod, type ClientRegistration } from './auth/client-auth.js';
export type { FetchLike, HttpContext } from './auth/http.js';
export { MAX_OAUTH_RESPONSE_BYTES } from './auth/bounded-fetch.js';
export {
  discoverAuthorization,
  type DiscoveredAuthorization,
  type DiscoveryOptions,
} from './auth/discovery.js';
export { discoverAuthorizationServer } from './auth/as-metadata.js';
export type { ProtectedResourceMetadata } from './auth/protected-resource.js';
export { parseBearerChallenge, type BearerChallenge } from './auth/www-authenticate.js';
export {
  DPOP_EXTENSION_ID,
  dpopExtension,
  dpopKeyKey,
  type DPoPAlgorithm,
  type DPoPOptions,
} from './auth/dpop.js';
// Machine-to-machine grants, each an `HttpAuthProvider` (docs/auth-machine.md).
export {
  clientCredentialsAuth,
  type ClientCredentialsAuthOptions,
} from './auth/machine/client-credentials.js';
export { crossAppAccessAuth, type CrossAppAccessAuthOptions } from './auth/machine/cross-app-access.js';
export { workloadIdentityAuth, type WorkloadIdentityAuthOptions } from './auth/machine/workload-identity.js';
export type {
  PlatformToken,
  PlatformTokenFunction,
  PlatformTokenRequest,
} from './auth/machine/platform-token.js';
export {
  CLIENT_CREDENTIALS_EXTENSION_ID,
  ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID,
  WORKLOAD_IDENTITY_EXTENSION_ID,
  declareAuthExtensions,
  type MachineAuthProvider,
} from './auth/machine/extensions.js';
export type {
  ClientSecretCredentials,
  MachineClientCredentials,
  PrivateKeyJwtCredentials,
} from './auth/machine/client-authentication.js';
export type { IdentityProvider } from './auth/machine/identity-provider.js';
export {
  DEFAULT_FLOW_TIMEOUT_MS,
  type DiscoverResource,
  type IssuerBinding,
} from './auth/machine/machine-provider.js';
export type { ProtectedResource } from './auth/machine/protected-resource.js';
export type { MachineHttpOptions } from './auth/machine/token-endpoint.js';
export { TokenEndpointError } from './auth/machine/errors.js';
export { SkillsClient, type LoadedSkill, type SkillFileContent } from './skills/skills-client.js';
export { SKILLS_EXTENSION, type SkillEntry, type SkillFile } from '../core/skills/skill-entry.js';
