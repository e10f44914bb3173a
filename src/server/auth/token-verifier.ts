/**
 * The one interface between the resource server and however tokens are checked.
 */
import type { AuthInfo } from '../../core/auth.js';

/**
 * Checks a bearer access token and says who it stands for. Resolve with the verified
 * {@link AuthInfo} (never containing the token itself); reject with `InvalidTokenError` for a
 * token that is not acceptable (401) or `TokenVerifierUnavailableError` when it cannot be checked
 * now (503). Anything else thrown is a server fault (500). Keel ships two: `JwtVerifier` and
 * `IntrospectionVerifier`.
 *
 * @example
 * const verifier: TokenVerifier = {
 *   async verify(token) {
 *     const user = await sessions.lookup(token);
 *     if (!user) throw new InvalidTokenError('Unknown token');
 *     return { subject: user.id, scopes: user.scopes };
 *   },
 * };
 */
export interface TokenVerifier {
  verify(token: string, signal?: AbortSignal): Promise<AuthInfo>;
}
