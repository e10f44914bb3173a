/**
 * What a {@link TokenVerifier} rejects with. Two kinds, because they need different answers: a
 * token that is bad (401, the client must get a new one) and a check that could not be made (503,
 * the token may be fine; the client should retry). Messages name a claim or an endpoint, never
 * the token.
 */
import { LocalError } from '../../core/errors.js';

/**
 * The token is not acceptable: malformed, expired, not yet valid, wrongly signed, for another
 * audience or issuer, inactive. Answered with 401 `error="invalid_token"`; the message becomes the
 * `error_description`, so it must never contain the token.
 *
 * @example
 * if (claims.exp * 1000 <= Date.now()) throw new InvalidTokenError('The token has expired');
 */
export class InvalidTokenError extends LocalError {
  override name = 'InvalidTokenError';
  constructor(message = 'The access token is invalid', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The token could not be checked: the JWKS or introspection endpoint is down, slow, or answered
 * something unusable. Answered with 503: the token may be fine, so it is not a 401.
 *
 * @example
 * if (!response.ok) throw new TokenVerifierUnavailableError(`Introspection endpoint answered ${response.status}`);
 */
export class TokenVerifierUnavailableError extends LocalError {
  override name = 'TokenVerifierUnavailableError';
  constructor(message = 'The token could not be verified now', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * An authorization grant presented at a token endpoint is not acceptable (RFC 6749 §5.2
 * `invalid_grant`): an ID-JAG from an untrusted issuer, for another audience or resource, for
 * another client, expired or replayed. The message names the claim, never the assertion, and
 * may go out as the `error_description`.
 *
 * @example
 * catch (e) { if (e instanceof InvalidGrantError) return json(400, { error: e.oauthError, error_description: e.message }); }
 */
export class InvalidGrantError extends LocalError {
  override name = 'InvalidGrantError';
  /** The OAuth error code to answer with. */
  readonly oauthError = 'invalid_grant';
  constructor(message = 'The authorization grant is invalid', options?: { cause?: unknown }) {
    super(message, options);
  }
}
