/**
 * `keel-mcp/server`: `McpServer` (tools, resources, prompts) and the low-level `Server`, what their
 * handlers receive and return, schemas, the OAuth resource server, and the errors of these
 * features. The shared error hierarchy and the MCP protocol types come from `keel-mcp/core`; of
 * it, this entry also exports `McpError` and `ErrorCode`, what a handler throws to answer with a
 * JSON-RPC error. Every name is listed on purpose (docs/entry-points.md says how they are chosen).
 */
export { McpError, ErrorCode } from '../core/error-classes.js';
export { McpServer, type McpServerOptions } from './mcp-server.js';
export {
  Server,
  type Connectable,
  type ServerOptions,
  type ServerRequestHandler,
  type ServerNotificationHandler,
} from './server.js';
export { ServerSession, type HandlerSession } from './server-session.js';
export { ToolContext, type HandlerContext } from './tool-context.js';
export type { ServerCall, ServerInterceptor, ServerNext } from './interceptors.js';
export { quotas } from './quotas/quotas.js';
export type { QuotaLimits, QuotaOptions, QuotaRateLimit } from './quotas/quota-options.js';
export { InMemoryQuotaStore, type InMemoryQuotaStoreOptions } from './quotas/memory-quota-store.js';
export type { QuotaDecision, QuotaRate, QuotaRequest, QuotaSlot, QuotaStore } from './quotas/quota-store.js';
export { methodNotFound } from './method-not-found.js';
export { toolError } from './tool-call.js';
export { resourceNotFound } from './resource-not-found.js';
export {
  logHandlerFailureToStderr,
  logHandlerFailureWithStack,
  type HandlerFailure,
  type ServerErrorHandler,
} from './handler-errors.js';
export type { ListKind } from './list-changed.js';
export { MAX_FANOUT_MESSAGE_BYTES, type FanoutLink, type FanoutMembership } from './fanout.js';
export type { BackChannelOptions } from './input-channel.js';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './tasks/memory-task-store.js';
export type { TaskOptions } from './tasks/task-options.js';
export {
  InMemoryStateStore,
  StateScope,
  type StateOptions,
  type StateStore,
  type StateWriteOptions,
} from './state/index.js';
export type { HandlerState } from './state/handler-state.js';
export type {
  NewTask,
  TaskCreateResult,
  TaskInputRequest,
  TaskPatch,
  TaskRecord,
  TaskStatus,
  TaskStore,
} from './tasks/task-store.js';
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
// Per-caller views (`visibleTo`) and the spec's tool-name rules (SEP-986).
export type { ViewCaller, Visibility, VisibilityRule } from './views/visibility.js';
export { warnToolNameToConsole, type ToolNameWarning } from './tool-names.js';
// MCP Apps (io.modelcontextprotocol/ui, SEP-1865): docs/apps.md.
export {
  apps,
  appResource,
  appTool,
  callerSupportsApps,
  type AppResourceConfig,
  type AppResourceReader,
  type AppToolConfig,
} from './apps/index.js';
export { DEFAULT_PAGE_SIZE } from './pagination.js';
export { registerJsonSchemaConverter, type JsonSchemaConverter } from '../core/schema/to-json-schema.js';
export {
  isStandardSchema,
  type StandardSchema,
  type InferInput,
  type InferOutput,
} from '../core/schema/standard-schema.js';
export type { SchemaInput } from '../core/schema/compile-schema.js';
export type { CachingOptions } from './modern/caching.js';
export type { HandlerRequest } from './handler-request.js';
export type { ModernRequest } from './modern/modern-request.js';
export {
  InputRequiredSignal,
  RequestStateError,
  SwallowedInputRoundError,
  TooManyInputRoundsError,
  type RequestStateFailure,
} from './modern/mrtr-errors.js';
export type { RequestStateKey, RequestStateOptions, RequestStateSecret } from './modern/request-state.js';
// The OAuth 2.1 resource server: protect a Streamable HTTP endpoint with bearer tokens.
export type { ResourceServerOptions } from './auth/options.js';
export type { TokenVerifier } from './auth/token-verifier.js';
export { InvalidGrantError, InvalidTokenError, TokenVerifierUnavailableError } from './auth/errors.js';
// Enterprise-managed authorization (SEP-990) at an authorization server: ID-JAG checks (docs/auth.md).
export {
  IdJagVerifier,
  ID_JAG_GRANT_PROFILE,
  type IdJagGrant,
  type IdJagReplayStore,
  type IdJagRequest,
  type IdJagVerifierOptions,
  type TrustedIdentityProvider,
} from './auth/id-jag-verifier.js';
export { JwtVerifier, DEFAULT_JWT_ALGORITHMS, type JwtVerifierOptions } from './auth/jwt-verifier.js';
export { IntrospectionVerifier, type IntrospectionVerifierOptions } from './auth/introspection-verifier.js';
export { protectedResourceMetadataHandler } from './auth/metadata.js';
export { MAX_AUTHORIZATION_BYTES } from './auth/challenge.js';
export { DEFAULT_DPOP_ALGORITHMS, type DPoPResourceOptions } from './auth/dpop-proof.js';
export { MAX_VERIFIER_RESPONSE_BYTES } from './auth/bounded-fetch.js';
export { skills, type SkillsOptions } from './skills/skills-extension.js';
export type { SkillSource } from './skills/define-skill.js';
export {
  SKILLS_EXTENSION,
  isSkillName,
  type SkillEntry,
  type SkillFile,
} from '../core/skills/skill-entry.js';
