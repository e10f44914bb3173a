/**
 * The error classes and codes a user catches, as one list that `keel-mcp/server` and
 * `keel-mcp/client` re-export beside `keel-mcp/core` (same classes, one identity).
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
  StoreUnavailableError,
  type AuthorizationFailure,
  type ErrorCodeValue,
} from '../core/errors.js';
