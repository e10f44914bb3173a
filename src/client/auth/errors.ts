import { LocalError } from '../../core/errors.js';

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
 * endpoints and claims only, never a token, code, verifier or secret.
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
