/**
 * Client registration in the spec's order: pre-registered credentials, then a client ID metadata
 * document (when the authorization server supports them), then dynamic client registration
 * (RFC 7591). Registrations are kept per issuer and never offered to another authorization server.
 */
import * as oauth from 'oauth4webapi';
import type { TokenStore } from '../../core/auth.js';
import { secretAuthMethod, type ClientRegistration } from './client-auth.js';
import { AuthorizationError } from './errors.js';
import { abortedOr, isRedirect, requestOptions, type HttpContext } from './http.js';
import { readJson, registrationKey } from './store.js';
import { isLoopback, secureUrl } from './urls.js';

/**
 * Metadata sent with dynamic client registration (RFC 7591 §2). `redirect_uris` is required.
 *
 * @example
 * const metadata: ClientMetadata = { client_name: 'My agent', redirect_uris: ['http://127.0.0.1:8976/callback'] };
 */
export interface ClientMetadata {
  readonly redirect_uris: readonly string[];
  readonly client_name?: string;
  /** `native` (loopback or custom-scheme redirects) or `web` (https); derived from the redirect URI when absent. */
  readonly application_type?: 'native' | 'web';
  readonly [name: string]: unknown;
}

/**
 * Pre-registered credentials: by issuer, or a function of the issuer (undefined: none for it).
 *
 * @example
 * const credentials: PreRegisteredCredentials = { 'https://auth.example.com': { client_id: 'abc', client_secret: 's3cret' } };
 */
export type PreRegisteredCredentials =
  Readonly<Record<string, ClientRegistration>> | ((issuer: string) => ClientRegistration | undefined);

/**
 * What {@link obtainRegistration} needs.
 *
 * @example
 * const registration = await obtainRegistration({ issuer, authorizationServer, metadata, store }, ctx);
 */
export interface RegistrationInput {
  readonly issuer: string;
  readonly authorizationServer: oauth.AuthorizationServer;
  readonly metadata: ClientMetadata;
  readonly store: TokenStore;
  readonly credentials?: PreRegisteredCredentials;
  /** This client's metadata document URL (an https URL with a path), used as its `client_id`. */
  readonly clientMetadataUrl?: string;
}

/**
 * `native` for loopback `http:` and custom-scheme redirect URIs, `web` for `https:` ones
 * (OpenID Connect Dynamic Client Registration §2 `application_type`).
 *
 * @example
 * applicationType('http://127.0.0.1:8976/callback'); // 'native'
 */
export function applicationType(redirectUri: string): 'native' | 'web' {
  const url = new URL(redirectUri);
  return url.protocol === 'https:' && !isLoopback(url) ? 'web' : 'native';
}

/**
 * The registration to use with `input.issuer`: pre-registered, stored, a client ID metadata
 * document, or a new dynamic registration (stored under the issuer). Rejects with a
 * `registration` error when none applies or the server refuses.
 *
 * @example
 * const { client_id } = await obtainRegistration(input, { signal });
 */
export async function obtainRegistration(
  input: RegistrationInput,
  ctx: HttpContext,
): Promise<ClientRegistration> {
  const { issuer, authorizationServer: as, credentials } = input;
  const preRegistered = typeof credentials === 'function' ? credentials(issuer) : credentials?.[issuer];
  if (preRegistered) return preRegistered;
  const stored = await readJson<ClientRegistration>(input.store, registrationKey(issuer));
  if (stored && typeof stored.client_id === 'string' && !secretExpired(stored)) return stored;
  if (input.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
    return { client_id: input.clientMetadataUrl, token_endpoint_auth_method: 'none' };
  }
  if (!as.registration_endpoint) {
    throw new AuthorizationError(
      'registration',
      `no client registration for ${issuer}: no pre-registered credentials, no client ID metadata document support, no registration_endpoint`,
    );
  }
  const registered = await register(input, as.registration_endpoint, ctx);
  await input.store.set(registrationKey(issuer), JSON.stringify(registered));
  return registered;
}

/**
 * Forget the stored registration with `issuer` (the server no longer knows the client).
 *
 * @example
 * await forgetRegistration(store, issuer);
 */
export async function forgetRegistration(store: TokenStore, issuer: string): Promise<void> {
  await store.delete(registrationKey(issuer));
}

function secretExpired(registration: ClientRegistration): boolean {
  const at = registration.client_secret_expires_at;
  return typeof at === 'number' && at > 0 && at * 1000 <= Date.now();
}

async function register(
  input: RegistrationInput,
  endpoint: string,
  ctx: HttpContext,
): Promise<ClientRegistration> {
  const as = input.authorizationServer;
  const url = secureUrl(endpoint, 'registration_endpoint');
  const [redirectUri] = input.metadata.redirect_uris;
  if (!redirectUri) throw new AuthorizationError('registration', 'client metadata has no redirect_uris');
  const supported = as.token_endpoint_auth_methods_supported;
  // A public client when the server allows it: a native app cannot keep a secret anyway.
  const method = !supported || supported.includes('none') ? 'none' : secretAuthMethod(as);
  const metadata = {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    application_type: input.metadata.application_type ?? applicationType(redirectUri),
    ...(method && { token_endpoint_auth_method: method }),
    ...input.metadata,
    redirect_uris: [...input.metadata.redirect_uris],
  };
  let response: Response;
  try {
    response = await oauth.dynamicClientRegistrationRequest(as, metadata, requestOptions(url, ctx));
  } catch (error) {
    throw abortedOr(
      error,
      ctx.signal,
      () => new AuthorizationError('registration', `registration at ${url.href} failed`, { cause: error }),
    );
  }
  if (isRedirect(response)) {
    throw new AuthorizationError(
      'redirect',
      `registration endpoint ${url.href} answered a redirect, which is not followed`,
    );
  }
  const copy = response.clone();
  let client: Record<string, unknown>;
  try {
    client = await oauth.processDynamicClientRegistrationResponse(response);
  } catch (error) {
    // RFC 7591 requires client_secret_expires_at with a secret, but widely deployed servers (and the
    // MCP conformance suite) leave it out; a registration that is otherwise valid is accepted.
    if (!(
      error instanceof oauth.OperationProcessingError && error.message.includes('client_secret_expires_at')
    )) {
      await copy.body?.cancel().catch(() => undefined);
      throw new AuthorizationError(
        'registration',
        `registration at ${url.href} was refused (${describeOAuthError(error)})`,
      );
    }
    client = (await copy.json()) as Record<string, unknown>;
  }
  return {
    client_id: client.client_id as string,
    ...(typeof client.client_secret === 'string' && { client_secret: client.client_secret }),
    ...(typeof client.token_endpoint_auth_method === 'string' && {
      token_endpoint_auth_method: client.token_endpoint_auth_method,
    }),
    ...(typeof client.client_secret_expires_at === 'number' && {
      client_secret_expires_at: client.client_secret_expires_at,
    }),
  };
}

/**
 * A short, secret-free description of an oauth4webapi error: the OAuth `error` code of a refusal,
 * or the library's own message (which names parameters, never their values).
 *
 * @example
 * throw new AuthorizationError('token', `token request refused (${describeOAuthError(error)})`);
 */
export function describeOAuthError(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return `${error.status} ${error.error}`;
  if (error instanceof oauth.AuthorizationResponseError) return error.error;
  if (error instanceof oauth.WWWAuthenticateChallengeError)
    return `${error.status} ${error.cause[0]?.scheme ?? ''}`.trim();
  if (error instanceof oauth.OperationProcessingError) return error.message;
  return error instanceof Error ? error.name : 'unknown error';
}
