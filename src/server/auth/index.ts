/**
 * The OAuth 2.1 resource server: protect a Streamable HTTP endpoint with bearer tokens.
 */
export type { ResourceServerOptions } from './options.js';
export type { TokenVerifier } from './token-verifier.js';
export type { AuthInfo } from '../../core/auth.js';
export { InvalidGrantError, InvalidTokenError, TokenVerifierUnavailableError } from './errors.js';
export {
  IdJagVerifier,
  ID_JAG_GRANT_PROFILE,
  type IdJagGrant,
  type IdJagReplayStore,
  type IdJagRequest,
  type IdJagVerifierOptions,
  type TrustedIdentityProvider,
} from './id-jag-verifier.js';
export { JwtVerifier, DEFAULT_JWT_ALGORITHMS, type JwtVerifierOptions } from './jwt-verifier.js';
export { IntrospectionVerifier, type IntrospectionVerifierOptions } from './introspection-verifier.js';
export {
  protectedResourceMetadata,
  protectedResourceMetadataHandler,
  protectedResourceMetadataLocations,
} from './metadata.js';
export { MAX_AUTHORIZATION_BYTES } from './challenge.js';
export { DEFAULT_DPOP_ALGORITHMS, type DPoPResourceOptions } from './dpop-proof.js';
export { MAX_VERIFIER_RESPONSE_BYTES } from './bounded-fetch.js';
export { isAuthInfo } from './auth-info.js';
