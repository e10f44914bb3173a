/**
 * One token endpoint request, done by oauth4webapi, with its failures turned into
 * {@link MachineAuthError}s. oauth4webapi's own errors carry the response body as `cause`, which
 * for a malformed success holds the access token: they are never passed on as a cause.
 */
import * as oauth from 'oauth4webapi';
import { machineAuthError, MachineAuthError } from './errors.js';

/** How the grants reach the network; shared by every request a provider makes. */
export interface MachineHttpOptions {
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
  /**
   * Allow `http:` endpoints. OAuth 2.1 wants TLS everywhere; only tests and loopback fixtures
   * should set this.
   */
  readonly allowInsecureHttp?: boolean;
  /** Bound on each token request, in milliseconds (default 30 000). */
  readonly requestTimeoutMs?: number;
}

/** An access token as the token endpoint issued it. */
export interface IssuedToken {
  readonly accessToken: string;
  /** Milliseconds since the epoch, when `expires_in` was given. */
  readonly expiresAt: number | undefined;
  /** The scope granted (`scope` of the response), else undefined. */
  readonly scope: string | undefined;
  /** The whole response, for grants that need more than the token (`issued_token_type`). */
  readonly response: oauth.TokenEndpointResponse;
}

/** One token request: which endpoint, who the client is, which grant with which parameters. */
export interface TokenRequest {
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  readonly grantType: string;
  readonly parameters: Record<string, string>;
  /** Token types other than Bearer/DPoP the answer may carry (token exchange answers `N_A`). */
  readonly acceptTokenTypes?: readonly string[];
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
  const endpoint = request.as.token_endpoint ?? '(no token_endpoint)';
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new Error('timed out')),
    http.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  const onAbort = (): void => timeout.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const options = {
    signal: timeout.signal,
    [oauth.allowInsecureRequests]: http.allowInsecureHttp === true,
    ...(http.fetch ? { [oauth.customFetch]: http.fetch } : {}),
  };
  try {
    let response: Response;
    try {
      response = await oauth.genericTokenEndpointRequest(
        request.as,
        request.client,
        request.clientAuth,
        request.grantType,
        request.parameters,
        options,
      );
    } catch (error) {
      throw requestFailure(error, endpoint, signal, timeout.signal);
    }
    const recognizedTokenTypes = Object.fromEntries(
      (request.acceptTokenTypes ?? []).map((type) => [type.toLowerCase(), () => undefined]),
    );
    let body: oauth.TokenEndpointResponse;
    try {
      body = await oauth.processGenericTokenEndpointResponse(request.as, request.client, response, {
        recognizedTokenTypes,
      });
    } catch (error) {
      throw responseFailure(error, endpoint, response.status);
    }
    return {
      accessToken: body.access_token,
      expiresAt: typeof body.expires_in === 'number' ? Date.now() + body.expires_in * 1000 : undefined,
      scope: typeof body.scope === 'string' ? body.scope : undefined,
      response: body,
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
): MachineAuthError {
  if (signal.aborted) return machineAuthError('network', `Token request to ${endpoint} aborted`);
  if (timeoutSignal.aborted) return machineAuthError('network', `Token request to ${endpoint} timed out`);
  // oauth4webapi refuses before sending (http: without opt-in, no token_endpoint, unusable key)
  // with a coded error; anything else is the network.
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (code.startsWith('OAUTH_') || code.startsWith('ERR_INVALID_ARG'))) {
    return machineAuthError(
      'invalid_configuration',
      `Cannot request a token from ${endpoint}: ${error instanceof Error ? error.message : code}`,
    );
  }
  return machineAuthError('network', `Token request to ${endpoint} failed: ${describe(error)}`);
}

function responseFailure(error: unknown, endpoint: string, status: number): MachineAuthError {
  if (error instanceof oauth.ResponseBodyError) {
    const detail = error.error_description ? `: ${error.error_description}` : '';
    return machineAuthError(
      'token_request_failed',
      `Token endpoint ${endpoint} refused the request (HTTP ${error.status}, ${error.error}${detail})`,
      { oauthError: error.error, status: error.status },
    );
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const code = error.cause[0]?.parameters.error ?? 'invalid_client';
    return machineAuthError(
      'token_request_failed',
      `Token endpoint ${endpoint} refused the client (HTTP ${error.status}, ${code})`,
      { oauthError: code, status: error.status },
    );
  }
  const reason = error instanceof Error ? error.message : 'unreadable response';
  return machineAuthError(
    'invalid_token_response',
    `Token endpoint ${endpoint} sent an invalid answer (HTTP ${status}): ${reason}`,
    { status },
  );
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
