import type { AuthorizationRedirect, TokenStore } from '../../core/auth.js';
import type { FetchLike } from './http.js';
import type { ClientMetadata, PreRegisteredCredentials } from './registration.js';

/**
 * Authorization flows for one request before it fails with `step-up-limit` (the spec's bound).
 *
 * @example
 * if (error instanceof AuthorizationError && error.reason === 'step-up-limit') console.log(`gave up after ${MAX_AUTHORIZATION_ATTEMPTS}`);
 */
export const MAX_AUTHORIZATION_ATTEMPTS = 3;

/**
 * Options of `OAuthClientProvider`.
 *
 * @example
 * const options: OAuthClientProviderOptions = {
 *   clientMetadata: { client_name: 'My agent', redirect_uris: ['http://127.0.0.1:8976/callback'] },
 *   redirect: headlessRedirect({ redirectUri: 'http://127.0.0.1:8976/callback' }),
 * };
 */
export interface OAuthClientProviderOptions {
  /** Registration metadata; `redirect_uris[0]` is the redirect URI of every flow. */
  readonly clientMetadata: ClientMetadata;
  /** This client's metadata document URL (CIMD), used as `client_id` where the server supports it. */
  readonly clientMetadataUrl?: string;
  /** Pre-registered credentials, per issuer: used before anything else. */
  readonly credentials?: PreRegisteredCredentials;
  /** The user-agent step (a browser and loopback listener, or `headlessRedirect`). */
  readonly redirect: AuthorizationRedirect;
  /** Where registrations and tokens are kept (default: in memory). */
  readonly store?: TokenStore;
  /** Space-separated scopes to request instead of the spec's selection. */
  readonly scope?: string;
  /** Replaces the global fetch for every OAuth request. */
  readonly fetch?: FetchLike;
  /** The clock (milliseconds), for token expiry. Default `Date.now`. */
  readonly now?: () => number;
}
