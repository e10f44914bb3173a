/**
 * The error classes and codes of the one hierarchy, as the list `keel-mcp/core` and `keel-mcp`
 * export. `keel-mcp/server` and `keel-mcp/client` take `McpError` and `ErrorCode` from here too
 * (same classes, one identity); docs/entry-points.md gives the rule.
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
} from '../core/errors.js';
