/**
 * Machine grants fail with the OAuth client's {@link AuthorizationError}. A token endpoint's answer
 * gets the subclass {@link TokenEndpointError}, which also carries the OAuth `error` code and the
 * HTTP status so a caller can tell `invalid_client` (fix the credentials) from `invalid_grant`
 * (the IdP refused the user). Messages name an endpoint, an OAuth error code or a claim, never a
 * token, assertion or secret; oauth4webapi's errors are never kept as a cause, because for a
 * malformed success their cause is the response body, access token included.
 */
import { AuthorizationError } from '../errors.js';

/**
 * A token endpoint refused a grant or answered something unusable (`reason` is `token`).
 *
 * @example
 * catch (e) { if (e instanceof TokenEndpointError && e.oauthError === 'invalid_client') rotateSecret(); }
 */
export class TokenEndpointError extends AuthorizationError {
  override name = 'TokenEndpointError';
  /** The OAuth `error` code of the answer (`invalid_client`, `invalid_grant`...), if it had one. */
  readonly oauthError: string | undefined;
  /** The HTTP status of the answer. */
  readonly status: number;
  constructor(message: string, status: number, oauthError?: string) {
    super('token', message);
    this.status = status;
    this.oauthError = oauthError;
  }
}
