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
