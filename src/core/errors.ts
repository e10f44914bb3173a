/**
 * One error hierarchy, one code table.
 *
 * - {@link McpError}: an error that travels on the wire (it has a JSON-RPC code). Either the peer
 *   sent it, or a handler threw it for the SDK to send.
 * - {@link LocalError} and its subclasses: conditions that happened on *this* side (connection
 *   closed, timeout, caller abort, not connected, dead context, peer cancellation). They never
 *   carry a wire code, so `instanceof McpError` can never confuse them with a peer's answer.
 */

/**
 * JSON-RPC and MCP error codes. The single table: every code Keel emits or recognises is here,
 * with the HTTP status it maps to in {@link httpStatusForCode}.
 *
 * @example
 * throw new McpError(ErrorCode.InvalidParams, 'city is required');
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Implementation-defined (grandfathered): written on a stdio EOF for requests never answered. */
  ConnectionClosed: -32000,
  /** Implementation-defined (grandfathered). */
  RequestTimeout: -32001,
  /** Legacy era: `resources/read` of an unknown URI. */
  ResourceNotFound: -32002,
  /**
   * Implementation-defined: a request refused because the connection already has `maxInflight`
   * handlers running and `maxQueued` waiting, and they have not moved for `queueWaitMs`. It never
   * ran; retry later.
   */
  ServerBusy: -32010,
  /**
   * Implementation-defined: the caller is over one of its quotas (`quotas()`: calls per window,
   * concurrent calls, running tasks). It never ran; `data` says which `limit` and `retryAfterMs`.
   * Over Streamable HTTP it travels with 429 and `Retry-After` when it is the POST's whole answer.
   */
  QuotaExceeded: -32011,
  /** 2026-07-28: HTTP header does not match the body. */
  HeaderMismatch: -32020,
  /**
   * 2026-07-28 only: a client capability the request needs was not declared. Undefined in the
   * legacy era, so legacy sessions never send it (see {@link MissingClientCapabilityError}).
   */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: protocol version not supported. */
  UnsupportedProtocolVersion: -32022,
  /** 2025-11-25: URL-mode elicitation required. */
  UrlElicitationRequired: -32042,
  /** LSP's code; ends a legacy-HTTP POST stream whose request was cancelled. */
  RequestCancelled: -32800,
} as const;

/**
 * One of the values of {@link ErrorCode}.
 *
 * @example
 * const code: ErrorCodeValue = ErrorCode.MethodNotFound; // -32601
 */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const httpStatusByCode: Record<number, number> = {
  [ErrorCode.ParseError]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.InvalidParams]: 400,
  [ErrorCode.InternalError]: 500,
  [ErrorCode.ServerBusy]: 503,
  [ErrorCode.QuotaExceeded]: 429,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
};

/**
 * HTTP status for an error that must be answered outside an SSE stream (e.g. a POST that could
 * not be read). Codes without a specific status map to 400.
 *
 * @example
 * httpStatusForCode(ErrorCode.ParseError); // 400
 */
export function httpStatusForCode(code: number): number {
  return httpStatusByCode[code] ?? 400;
}

/**
 * Base class of every error Keel throws.
 *
 * @example
 * try { await client.callTool('x', {}); } catch (e) { if (e instanceof KeelError) console.log(e.name); }
 */
export class KeelError extends Error {
  override name = 'KeelError';
}

/**
 * A JSON-RPC error: sent by the peer, or thrown by a handler to be sent to the peer.
 *
 * @example
 * throw new McpError(ErrorCode.InvalidParams, 'Unknown tool: nope');
 */
export class McpError extends KeelError {
  override name = 'McpError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The JSON-RPC `error` object for this error. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * Something that happened on this side of the connection. Never a wire error.
 *
 * @example
 * if (error instanceof LocalError) retryLater();
 */
export class LocalError extends KeelError {
  override name = 'LocalError';
  constructor(message?: string, options?: { cause?: unknown }) {
    // No `cause` property at all when there is none: Node prints an own `cause: undefined` as
    // `[cause]: undefined`, which reads as if something were missing.
    super(message, options?.cause === undefined ? undefined : options);
  }
}

/**
 * Why an OAuth client could not get authorization. One value per failure class, so callers can
 * branch without parsing messages.
 *
 * @example
 * if (error instanceof AuthorizationError && error.reason === 'step-up-limit') askUserForHelp();
 */
export type AuthorizationFailure =
  /** No protected resource or authorization server metadata could be fetched or read. */
  | 'discovery'
  /**
   * Authorization server metadata names another issuer than the one it was fetched for (or, at a
   * 2025-03-26 server's origin, one of another origin), or the server's authorization server is
   * not the issuer a machine grant's credentials are bound to.
   */
  | 'issuer-mismatch'
  /** The protected resource metadata names a resource other than the server being called. */
  | 'resource-mismatch'
  /** The authorization server does not advertise PKCE with S256. */
  | 'pkce-unsupported'
  /** No way to register (no pre-registration, CIMD or dynamic registration), or registration failed. */
  | 'registration'
  /** The authorization response (callback URL) is wrong: state, iss, error, or no code. */
  | 'invalid-callback'
  /** The token endpoint refused or answered something unusable. */
  | 'token'
  /** Step-up on `insufficient_scope` did not succeed within the attempt limit. */
  | 'step-up-limit'
  /** A non-loopback `http:` URL, where only `https:` is safe. */
  | 'insecure-url'
  /** A metadata, registration or token request was redirected (redirects are not followed). */
  | 'redirect'
  /** The user-agent step (`AuthorizationRedirect`) failed. */
  | 'redirect-failed'
  /** A metadata, registration or token response larger than the client reads. */
  | 'too-large'
  /** The caller's signal aborted the flow. */
  | 'aborted';

/**
 * An OAuth client failure on this side. `reason` says which step failed; the message names
 * endpoints and claims only, never a token, code, verifier or secret. A request whose
 * authorization failed rejects with this error itself (not wrapped in a connection error): the
 * connection is fine, the credentials are not.
 *
 * @example
 * try { await client.connect(transport); }
 * catch (e) { if (e instanceof AuthorizationError) console.error(e.reason, e.message); }
 */
export class AuthorizationError extends LocalError {
  override name = 'AuthorizationError';
  constructor(
    readonly reason: AuthorizationFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The connection ended (EOF, child exit, DELETE, shutdown) before the request settled, or a request
 * was made after close. `cause` holds the transport's last error, if any.
 *
 * @example
 * catch (e) { if (e instanceof ConnectionClosedError) reconnect(); }
 */
export class ConnectionClosedError extends LocalError {
  override name = 'ConnectionClosedError';
  constructor(message = 'Connection closed', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * An outbound request got no response in time (or exceeded its maximum total time).
 *
 * @example
 * await client.callTool('slow', {}, { timeoutMs: 1000 }).catch((e) => e instanceof RequestTimeoutError);
 */
export class RequestTimeoutError extends LocalError {
  override name = 'RequestTimeoutError';
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`Request timed out after ${timeoutMs} ms`, options);
  }
}

/**
 * The caller's `AbortSignal` fired. `cause` is the signal's reason.
 *
 * @example
 * const ac = new AbortController(); ac.abort();
 * await client.ping({ signal: ac.signal }).catch((e) => e instanceof RequestAbortedError); // true
 */
export class RequestAbortedError extends LocalError {
  override name = 'RequestAbortedError';
  constructor(options?: { cause?: unknown }) {
    super('Request aborted by the caller', options);
  }
}

/**
 * The object is not connected (yet, or any more).
 *
 * @example
 * new McpClient(info).listTools(); // rejects with NotConnectedError
 */
export class NotConnectedError extends LocalError {
  override name = 'NotConnectedError';
  constructor(message = 'Not connected') {
    super(message);
  }
}

/**
 * A shared store (Redis, ...) was unreachable or did not answer within its command timeout. Only
 * the operation that needed it fails; the store is usable again once the backend is back.
 *
 * @example
 * try { await store.storeEvent('s1:1', message); } catch (e) { if (e instanceof StoreUnavailableError) log(e.operation); }
 */
export class StoreUnavailableError extends LocalError {
  override name = 'StoreUnavailableError';
  constructor(
    /** Which store: `'redis event store'`, ... */
    readonly store: string,
    /** What it was asked to do: `'storeEvent'`, ... */
    readonly operation: string,
    options?: { cause?: unknown; timedOut?: boolean },
  ) {
    super(
      `${store}: ${operation} failed (${options?.timedOut ? 'no answer within the command timeout' : 'backend unavailable'})`,
      { cause: options?.cause },
    );
  }
}

/**
 * Which check a skill file failed (SEP-2640 verification on read).
 *
 * @example
 * const check: SkillCheck = 'digest';
 */
export type SkillCheck = 'size' | 'digest' | 'frontmatter';

/**
 * A skill file a server sent does not match the entry `skills/list` or `skills/get` gave for it
 * (SEP-2640 "Integrity and verification"): its byte length (`size`), its SHA-256 (`digest`), or
 * the YAML frontmatter of its `SKILL.md` (`frontmatter`, with the fields that differ). The content
 * is never handed on.
 *
 * @example
 * try { await skills.load(entry); } catch (e) { if (e instanceof SkillVerificationError) console.log(e.check, e.expected, e.actual); }
 */
export class SkillVerificationError extends LocalError {
  override name = 'SkillVerificationError';
  constructor(
    /** The resource URI of the file that failed. */
    readonly uri: string,
    /** The check that failed. */
    readonly check: SkillCheck,
    /** What the entry promised (a size, a digest, or the entry's frontmatter fields). */
    readonly expected: unknown,
    /** What arrived. */
    readonly actual: unknown,
    /** For `frontmatter`: the names of the fields that differ (or `['(unparseable)']`). */
    readonly fields: readonly string[] = [],
  ) {
    super(
      check === 'frontmatter'
        ? `Skill file ${uri} failed frontmatter verification: ${fields.join(', ')} differ from the listed entry`
        : `Skill file ${uri} failed ${check} verification: expected ${String(expected)}, got ${String(actual)}`,
    );
  }
}

/**
 * A handler context was used after its request ended.
 *
 * @example
 * let saved; server.tool('t', {}, (_a, ctx) => { saved = ctx; return 'ok'; });
 * // later: await saved.listRoots() rejects with ContextClosedError
 */
export class ContextClosedError extends LocalError {
  override name = 'ContextClosedError';
  constructor(message = 'The request this context belongs to has ended') {
    super(message);
  }
}

/**
 * Abort reason of a handler whose request the peer cancelled (`notifications/cancelled`).
 * Distinct from {@link ConnectionClosedError} (teardown) and {@link RequestTimeoutError}.
 *
 * @example
 * if (ctx.signal.reason instanceof CancelledByPeerError) console.log('client gave up');
 */
export class CancelledByPeerError extends LocalError {
  override name = 'CancelledByPeerError';
  constructor(readonly reason?: string) {
    super(reason ? `Cancelled by peer: ${reason}` : 'Cancelled by peer');
  }
}

/**
 * A handler asked the client for something (`roots/list`, sampling, elicitation) that the client
 * did not declare in its capabilities. Raised locally before anything is sent, like the official
 * SDKs do; it has no wire code of its own because the legacy revisions define none: a tool that
 * lets it escape answers with an `isError` result, any other handler with `-32603`.
 * `toMcpError()` gives the 2026-07-28 form (`-32021`, `data.requiredCapabilities`).
 *
 * @example
 * try { await ctx.elicit({ message: 'Units?', schema }); }
 * catch (e) { if (e instanceof MissingClientCapabilityError) return 'Assuming Celsius'; throw e; }
 */
export class MissingClientCapabilityError extends LocalError {
  override name = 'MissingClientCapabilityError';
  constructor(
    /** The capability, dotted for a sub-capability (`elicitation.url`, `sampling.tools`). */
    readonly capability: string,
    /** The capabilities object the request needs, e.g. `{ elicitation: { url: {} } }`. */
    readonly requiredCapabilities: { [key: string]: unknown },
    message = `The client did not declare the "${capability}" capability`,
  ) {
    super(message);
  }

  /** The 2026-07-28 wire error (`-32021`); never sent in the legacy era, where it is undefined. */
  toMcpError(): McpError {
    return new McpError(ErrorCode.MissingRequiredClientCapability, this.message, {
      requiredCapabilities: this.requiredCapabilities,
    });
  }
}

/**
 * Turn anything a handler threw into the JSON-RPC error to send. Internal details of non-MCP
 * errors are kept to the message.
 *
 * @example
 * toWireError(new McpError(ErrorCode.InvalidParams, 'bad city')); // { code: -32602, message: 'bad city' }
 * toWireError(new Error('disk full')); // { code: -32603, message: 'disk full' }
 */
export function toWireError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof McpError) return error.toJSON();
  const message = error instanceof Error ? error.message : String(error);
  return { code: ErrorCode.InternalError, message: message || 'Internal error' };
}
