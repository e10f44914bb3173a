/**
 * Tokens as the OAuth client keeps them, and the token endpoint requests that produce them
 * (authorization code exchange and refresh), both with the RFC 8707 `resource`.
 */
import * as oauth from 'oauth4webapi';
import { clientAuthentication } from './client-auth.js';
import { AuthorizationError } from './errors.js';
import { tokenExpired } from './expiry.js';
export { EXPIRY_MARGIN_MS } from './expiry.js';
import { abortedOr, isRedirect, requestOptions, type HttpContext } from './http.js';
import type { ClientRegistration } from './client-auth.js';
import { describeOAuthError } from './registration.js';
import { secureUrl } from './urls.js';

/**
 * Tokens issued by one authorization server for one resource.
 *
 * @example
 * const tokens: StoredTokens = { access_token: 'eyJ…', token_type: 'bearer', expires_at: Date.now() + 3_600_000 };
 */
export interface StoredTokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly refresh_token?: string;
  /** Expiry in milliseconds since the epoch (from `expires_in`); absent: unknown. */
  readonly expires_at?: number;
  /** When the token was issued (ms since the epoch), with `expires_at`: its lifetime sets the margin. */
  readonly issued_at?: number;
  /** Granted scopes, as the server reported them. */
  readonly scope?: string | undefined;
}

/**
 * Whether `tokens` has expired at `now`: the one expiry rule of expiry.ts (a margin of the smaller
 * of {@link EXPIRY_MARGIN_MS} and half the token's lifetime).
 *
 * @example
 * if (isExpired(tokens, Date.now())) await refresh();
 */
export function isExpired(tokens: StoredTokens, now: number): boolean {
  return tokenExpired(tokens.expires_at, tokens.issued_at, now);
}

/**
 * Everything a token endpoint request needs.
 *
 * @example
 * const grant: TokenGrant = { as, registration, resource, now: Date.now };
 */
export interface TokenGrant {
  readonly as: oauth.AuthorizationServer;
  readonly registration: ClientRegistration;
  readonly resource: string;
  readonly now: () => number;
  /** Send a DPoP proof with the request (RFC 9449 §5): the token comes back bound to its key. */
  readonly dpop?: oauth.DPoPHandle | undefined;
}

/**
 * Exchange an authorization code (`callback` = the validated authorization response) for tokens.
 *
 * @example
 * const tokens = await exchangeCode(grant, params, redirectUri, verifier, ctx);
 */
export async function exchangeCode(
  grant: TokenGrant,
  callback: URLSearchParams,
  redirectUri: string,
  codeVerifier: string,
  ctx: HttpContext,
): Promise<StoredTokens> {
  const { as, registration } = grant;
  const client: oauth.Client = { client_id: registration.client_id };
  const processed = await withDPoPNonce(grant, async () => {
    const response = await tokenRequest(grant, ctx, (url) =>
      oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuthentication(registration, as),
        callback,
        redirectUri,
        codeVerifier,
        {
          ...requestOptions(url, ctx),
          additionalParameters: { resource: grant.resource },
          ...(grant.dpop && { DPoP: grant.dpop }),
        },
      ),
    );
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }).catch((error: unknown) => {
    if (error instanceof AuthorizationError) throw error;
    throw new AuthorizationError(
      'token',
      `token endpoint ${as.token_endpoint ?? ''} refused the authorization code (${describeOAuthError(error)})`,
    );
  });
  return fromResponse(processed, undefined, grant.now(), grant.dpop !== undefined);
}

/**
 * Use `previous.refresh_token` for new tokens. The new refresh token replaces the old one when the
 * server rotates it (the old one is then never sent again); when the server returns none, the old
 * one stays.
 *
 * @example
 * const fresh = await refreshTokens(grant, tokens, ctx);
 */
export async function refreshTokens(
  grant: TokenGrant,
  previous: StoredTokens,
  ctx: HttpContext,
): Promise<StoredTokens> {
  const { as, registration } = grant;
  const refreshToken = previous.refresh_token;
  if (!refreshToken) throw new AuthorizationError('token', 'no refresh token');
  const client: oauth.Client = { client_id: registration.client_id };
  const processed = await withDPoPNonce(grant, async () => {
    const response = await tokenRequest(grant, ctx, (url) =>
      oauth.refreshTokenGrantRequest(as, client, clientAuthentication(registration, as), refreshToken, {
        ...requestOptions(url, ctx),
        additionalParameters: { resource: grant.resource },
        ...(grant.dpop && { DPoP: grant.dpop }),
      }),
    );
    return oauth.processRefreshTokenResponse(as, client, response);
  }).catch((error: unknown) => {
    if (error instanceof AuthorizationError) throw error;
    throw new AuthorizationError(
      'token',
      `token endpoint ${as.token_endpoint ?? ''} refused the refresh (${describeOAuthError(error)})`,
    );
  });
  return fromResponse(processed, previous, grant.now(), grant.dpop !== undefined);
}

/**
 * Run a token request; when it sent a DPoP proof and the server answered `use_dpop_nonce` (RFC
 * 9449 §8: the handle has kept the nonce from that answer), send it once more with the nonce.
 */
async function withDPoPNonce<T>(grant: TokenGrant, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (grant.dpop === undefined || !oauth.isDPoPNonceError(error)) throw error;
    return attempt();
  }
}

async function tokenRequest(
  grant: TokenGrant,
  ctx: HttpContext,
  send: (url: URL) => Promise<Response>,
): Promise<Response> {
  const endpoint = grant.as.token_endpoint;
  if (!endpoint)
    throw new AuthorizationError(
      'discovery',
      `authorization server ${grant.as.issuer} has no token_endpoint`,
    );
  const url = secureUrl(endpoint, 'token_endpoint');
  let response: Response;
  try {
    response = await send(url);
  } catch (error) {
    throw abortedOr(
      error,
      ctx.signal,
      () => new AuthorizationError('token', `token request to ${url.href} failed`, { cause: error }),
    );
  }
  if (isRedirect(response)) {
    throw new AuthorizationError(
      'redirect',
      `token endpoint ${url.href} answered a redirect, which is not followed`,
    );
  }
  return response;
}

function fromResponse(
  response: oauth.TokenEndpointResponse,
  previous: StoredTokens | undefined,
  now: number,
  dpop: boolean,
): StoredTokens {
  // Without a DPoP key the client can only send `Authorization: Bearer`; a sender-constrained
  // token sent that way is refused by the server, which would only loop through more flows.
  const type = response.token_type.toLowerCase();
  if (type !== 'bearer' && !(dpop && type === 'dpop')) {
    throw new AuthorizationError(
      'token',
      `the token endpoint issued a ${response.token_type} token; only Bearer${dpop ? ' and DPoP' : ''} tokens are supported${dpop ? '' : ' (set the dpop option for DPoP)'}`,
    );
  }
  const refresh = response.refresh_token ?? previous?.refresh_token;
  return {
    access_token: response.access_token,
    token_type: response.token_type,
    ...(refresh !== undefined && { refresh_token: refresh }),
    ...(typeof response.expires_in === 'number' && {
      expires_at: now + response.expires_in * 1000,
      issued_at: now,
    }),
    ...((response.scope ?? previous?.scope) !== undefined && { scope: response.scope ?? previous?.scope }),
  };
}
