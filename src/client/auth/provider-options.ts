import type { AuthorizationRedirect, TokenStore } from '../../core/auth.js';
import type { FetchLike } from './http.js';
import type { ClientMetadata, PreRegisteredCredentials } from './registration.js';
import type { DPoPOptions } from './dpop.js';

/**
 * Authorization flows for one request before it fails with `step-up-limit` (the spec's bound).
 *
 * @example
 * if (error instanceof AuthorizationError && error.reason === 'step-up-limit') console.log(`gave up after ${MAX_AUTHORIZATION_ATTEMPTS}`);
 */
export const MAX_AUTHORIZATION_ATTEMPTS = 3;

/**
 * How long a request's authorization flows count toward {@link MAX_AUTHORIZATION_ATTEMPTS}: flows
 * further apart than this (a long-lived stream whose token lapsed again) start a new count.
 *
 * @example
 * console.log(`at most ${MAX_AUTHORIZATION_ATTEMPTS} flows within ${ATTEMPT_WINDOW_MS / 60_000} minutes`);
 */
export const ATTEMPT_WINDOW_MS = 10 * 60_000;

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
  /**
   * Sender-constrained tokens (DPoP, RFC 9449; MCP extension SEP-1932): token requests carry a
   * proof of this client's key, and a token the server binds to it (`token_type: DPoP`) is sent as
   * `Authorization: DPoP` with a fresh `DPoP` proof on every request. Server nonces are handled.
   * `true`: an ES256 key generated once and kept in {@link store}.
   */
  readonly dpop?: boolean | DPoPOptions;
}
