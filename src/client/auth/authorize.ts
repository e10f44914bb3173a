/**
 * The authorization code flow with PKCE (S256 only): build the authorization request (with
 * `state` and the RFC 8707 `resource`), hand it to the user-agent step, validate the response
 * (state, RFC 9207 `iss`, error), and exchange the code.
 */
import * as oauth from 'oauth4webapi';
import type { AuthorizationRedirect } from '../../core/auth.js';
import { AuthorizationError } from './errors.js';
import type { HttpContext } from './http.js';
import { describeOAuthError } from './registration.js';
import { exchangeCode, type StoredTokens, type TokenGrant } from './tokens.js';
import { secureUrl } from './urls.js';

/**
 * One authorization code flow.
 *
 * @example
 * const tokens = await authorizeWithCode({ ...grant, redirectUri, redirect, scope: 'files:read' }, { signal });
 */
export interface CodeFlow extends TokenGrant {
  readonly redirectUri: string;
  readonly redirect: AuthorizationRedirect;
  /** Space-separated scopes; undefined sends no `scope` parameter. */
  readonly scope: string | undefined;
}

/**
 * Refuse an authorization server that does not advertise PKCE with S256: without the
 * advertisement the client cannot know the code is bound to its verifier.
 *
 * @example
 * assertPkceS256(as); // throws AuthorizationError('pkce-unsupported') when S256 is not listed
 */
export function assertPkceS256(as: oauth.AuthorizationServer): void {
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new AuthorizationError(
      'pkce-unsupported',
      `authorization server ${as.issuer} does not advertise code_challenge_methods_supported S256; refusing to authorize without PKCE`,
    );
  }
}

/**
 * Run the flow and resolve with the tokens.
 *
 * @example
 * const tokens = await authorizeWithCode(flow, { signal });
 */
export async function authorizeWithCode(
  flow: CodeFlow,
  ctx: HttpContext & { signal: AbortSignal },
): Promise<StoredTokens> {
  const { as, registration } = flow;
  assertPkceS256(as);
  if (!as.authorization_endpoint) {
    throw new AuthorizationError(
      'discovery',
      `authorization server ${as.issuer} has no authorization_endpoint`,
    );
  }
  const endpoint = secureUrl(as.authorization_endpoint, 'authorization_endpoint');
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(endpoint.href);
  const params = url.searchParams;
  params.set('response_type', 'code');
  params.set('client_id', registration.client_id);
  params.set('redirect_uri', flow.redirectUri);
  params.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  params.set('code_challenge_method', 'S256');
  params.set('state', state);
  params.set('resource', flow.resource);
  if (flow.scope) params.set('scope', flow.scope);

  let callback: URL;
  try {
    callback = await flow.redirect(url, ctx.signal);
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    if (ctx.signal.aborted)
      throw new AuthorizationError('aborted', 'authorization aborted', { cause: ctx.signal.reason });
    throw new AuthorizationError(
      'redirect-failed',
      `the authorization step at ${endpoint.origin}${endpoint.pathname} failed`,
      {
        cause: error,
      },
    );
  }
  const response = validateCallback(flow, callback, state);
  return exchangeCode(flow, response, flow.redirectUri, verifier, ctx);
}

/**
 * Validate the authorization response before the code goes anywhere: it must come back to our
 * redirect URI, carry our `state`, and an `iss` that is present must be identical to the recorded
 * issuer (required when the server advertises `authorization_response_iss_parameter_supported`).
 * oauth4webapi does the state and `iss` checks with simple string comparison, as RFC 9207 asks.
 */
function validateCallback(flow: CodeFlow, callback: URL, state: string): URLSearchParams {
  const expected = new URL(flow.redirectUri);
  if (callback.origin !== expected.origin || callback.pathname !== expected.pathname) {
    throw new AuthorizationError(
      'invalid-callback',
      `the authorization response came back to ${callback.origin}${callback.pathname}, not the redirect URI`,
    );
  }
  try {
    return oauth.validateAuthResponse(flow.as, { client_id: flow.registration.client_id }, callback, state);
  } catch (error) {
    // The message names the failed check (state, iss, error code); never the code or state values.
    throw new AuthorizationError(
      'invalid-callback',
      `authorization response from ${flow.as.issuer} rejected: ${describeOAuthError(error)}`,
    );
  }
}
