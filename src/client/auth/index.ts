export { AuthorizationError, type AuthorizationFailure } from './errors.js';
export { discoverAuthorization, type DiscoveredAuthorization, type DiscoveryOptions } from './discovery.js';
export {
  authorizationServerMetadataUrls,
  discoverAuthorizationServer,
  findAuthorizationServer,
} from './as-metadata.js';
export {
  fetchProtectedResourceMetadata,
  protectedResourceMetadataUrls,
  resourceMatches,
  type ProtectedResourceMetadata,
} from './protected-resource.js';
export {
  parseBearerChallenge,
  parseWwwAuthenticate,
  type BearerChallenge,
  type WwwAuthenticateChallenge,
} from './www-authenticate.js';
export {
  abortedOr,
  getMetadata,
  isRedirect,
  requestOptions,
  type FetchLike,
  type HttpContext,
} from './http.js';
export { isLoopback, secureUrl } from './urls.js';
export { OAuthClientProvider } from './provider.js';
export {
  ATTEMPT_WINDOW_MS,
  MAX_AUTHORIZATION_ATTEMPTS,
  type OAuthClientProviderOptions,
} from './provider-options.js';
export { headlessRedirect, type HeadlessRedirectOptions } from './headless-redirect.js';
export { MemoryTokenStore, registrationKey, tokensKey } from './store.js';
export {
  applicationType,
  obtainRegistration,
  type ClientMetadata,
  type PreRegisteredCredentials,
  type RegistrationInput,
} from './registration.js';
export { clientAuthentication, secretAuthMethod, type ClientRegistration } from './client-auth.js';
export { assertPkceS256 } from './authorize.js';
export { selectScopes } from './scope.js';
export { EXPIRY_MARGIN_MS, isExpired, refreshTokens, type StoredTokens, type TokenGrant } from './tokens.js';
export { boundedFetch, MAX_OAUTH_RESPONSE_BYTES } from './bounded-fetch.js';
export {
  DPOP_EXTENSION_ID,
  DPoPSigner,
  dpopExtension,
  dpopKeyKey,
  type DPoPAlgorithm,
  type DPoPOptions,
} from './dpop.js';
export * from './machine/index.js';
