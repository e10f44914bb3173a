/**
 * One token endpoint request, done by oauth4webapi, with its failures turned into
 * {@link AuthorizationError}s (see errors.ts for why oauth4webapi's errors are not kept as causes).
 * Plain `http:` only to loopback hosts, redirects never followed: the OAuth client's rules.
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from '../errors.js';
import { isRedirect, requestOptions, type FetchLike, type OAuthRequestOptions } from '../http.js';
import { TokenEndpointError } from './errors.js';

/**
 * How the grants reach the network; shared by every request a provider makes.
 *
 * @example
 * clientCredentialsAuth({ credentials, fetch: myFetch, requestTimeoutMs: 10_000 });
 */
export interface MachineHttpOptions {
  /** The fetch to use for metadata and token requests (default: the global one). */
  readonly fetch?: FetchLike;
  /** Bound on each token request, in milliseconds (default 30 000). */
  readonly requestTimeoutMs?: number;
  /**
   * Bound on one whole token step that concurrent requests share (discovery, IdP exchange and
   * token request together), in milliseconds (default 60 000). When it passes the step fails, its
   * requests fail with a `token` AuthorizationError, and the next request starts afresh.
   */
  readonly flowTimeoutMs?: number;
}

/**
 * An access token as the token endpoint issued it.
 *
 * @example
 * const header = `Bearer ${issued.accessToken}`;
 */
export interface IssuedToken {
  readonly accessToken: string;
  /** Milliseconds since the epoch, when `expires_in` was given. */
  readonly expiresAt: number | undefined;
  /** The scope granted (`scope` of the response), else undefined. */
  readonly scope: string | undefined;
  /** The whole response, for grants that need more than the token (`issued_token_type`). */
  readonly response: oauth.TokenEndpointResponse;
  /** True for a DPoP-bound token (`token_type: DPoP`): it goes out with the DPoP scheme and a proof. */
  readonly dpop?: boolean;
}

/**
 * One token request: which endpoint, who the client is, which grant with which parameters.
 *
 * @example
 * const request: TokenRequest = { as, client: { client_id: 'svc' }, clientAuth, grantType: 'client_credentials', parameters: {} };
 */
export interface TokenRequest {
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  readonly grantType: string;
  readonly parameters: Record<string, string>;
  /** Token types other than Bearer/DPoP the answer may carry (token exchange answers `N_A`). */
  readonly acceptTokenTypes?: readonly string[];
  /** Send a DPoP proof (RFC 9449 §5); a `use_dpop_nonce` answer is retried once with the nonce. */
  readonly dpop?: oauth.DPoPHandle | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Sends the request and validates the answer.
 *
 * @example
 * const token = await requestToken({ as, client: { client_id: 'svc' }, clientAuth: oauth.ClientSecretBasic(secret),
 *   grantType: 'client_credentials', parameters: { resource } }, {}, signal);
 */
export async function requestToken(
  request: TokenRequest,
  http: MachineHttpOptions,
  signal: AbortSignal,
): Promise<IssuedToken> {
  const endpoint = request.as.token_endpoint;
  if (!endpoint)
    throw new AuthorizationError('discovery', `${request.as.issuer} publishes no token_endpoint`);
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new Error('timed out')),
    http.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  const onAbort = (): void => timeout.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let options: OAuthRequestOptions;
  try {
    // Refuses http: off loopback (insecure-url) before anything is sent.
    options = requestOptions(new URL(endpoint), {
      signal: timeout.signal,
      ...(http.fetch && { fetch: http.fetch }),
    });
  } catch (error) {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    throw error instanceof AuthorizationError
      ? error
      : new AuthorizationError('discovery', `token_endpoint of ${request.as.issuer} is not a URL`);
  }
  try {
    let response: Response;
    let body: oauth.TokenEndpointResponse;
    for (let attempt = 1; ; attempt++) {
      try {
        response = await oauth.genericTokenEndpointRequest(
          request.as,
          request.client,
          request.clientAuth,
          request.grantType,
          request.parameters,
          request.dpop ? { ...options, DPoP: request.dpop } : options,
        );
      } catch (error) {
        throw requestFailure(error, endpoint, signal, timeout.signal);
      }
      if (isRedirect(response)) {
        throw new AuthorizationError(
          'redirect',
          `token endpoint ${endpoint} answered with a redirect, which is not followed`,
        );
      }
      const recognizedTokenTypes = Object.fromEntries(
        (request.acceptTokenTypes ?? []).map((type) => [type.toLowerCase(), () => undefined]),
      );
      try {
        body = await oauth.processGenericTokenEndpointResponse(request.as, request.client, response, {
          recognizedTokenTypes,
        });
        break;
      } catch (error) {
        // RFC 9449 §8: the DPoP handle kept the nonce of this answer; the next proof carries it.
        if (request.dpop && attempt === 1 && oauth.isDPoPNonceError(error)) continue;
        throw responseFailure(error, endpoint, response.status);
      }
    }
    // It goes into an Authorization header: visible ASCII only (RFC 6750 b64token is stricter
    // still), or the transport's Headers would throw an untyped error for every request.
    if (!/^[\x21-\x7e]+$/.test(body.access_token)) {
      throw new TokenEndpointError(
        `token endpoint ${endpoint} sent an access_token that cannot go in an Authorization header`,
        response.status,
      );
    }
    return {
      accessToken: body.access_token,
      expiresAt: typeof body.expires_in === 'number' ? Date.now() + body.expires_in * 1000 : undefined,
      scope: typeof body.scope === 'string' ? body.scope : undefined,
      response: body,
      ...(request.dpop && body.token_type.toLowerCase() === 'dpop' && { dpop: true }),
    };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

function requestFailure(
  error: unknown,
  endpoint: string,
  signal: AbortSignal,
  timeoutSignal: AbortSignal,
): AuthorizationError {
  if (signal.aborted) return new AuthorizationError('aborted', `token request to ${endpoint} aborted`);
  if (timeoutSignal.aborted) return new AuthorizationError('token', `token request to ${endpoint} timed out`);
  return new AuthorizationError('token', `token request to ${endpoint} failed: ${describe(error)}`);
}

function responseFailure(error: unknown, endpoint: string, status: number): AuthorizationError {
  if (error instanceof oauth.ResponseBodyError) {
    const detail = error.error_description ? `: ${error.error_description}` : '';
    return new TokenEndpointError(
      `token endpoint ${endpoint} refused the request (HTTP ${error.status}, ${error.error}${detail})`,
      error.status,
      error.error,
    );
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const code = error.cause[0]?.parameters.error ?? 'invalid_client';
    return new TokenEndpointError(
      `token endpoint ${endpoint} refused the client (HTTP ${error.status}, ${code})`,
      error.status,
      code,
    );
  }
  const reason = error instanceof Error ? error.message : 'unreadable response';
  return new TokenEndpointError(
    `token endpoint ${endpoint} sent an invalid answer (HTTP ${status}): ${reason}`,
    status,
  );
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  }
  return String(error);
}
