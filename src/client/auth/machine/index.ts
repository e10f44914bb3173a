/**
 * Machine-to-machine authorization for the HTTP client transport: the client credentials grant
 * and enterprise-managed cross-app access, each an `HttpAuthProvider`.
 */
export { clientCredentialsAuth, type ClientCredentialsAuthOptions } from './client-credentials.js';
export { crossAppAccessAuth, type CrossAppAccessAuthOptions } from './cross-app-access.js';
export type {
  ClientSecretCredentials,
  MachineClientCredentials,
  PrivateKeyJwtCredentials,
} from './client-authentication.js';
export type { IdentityProvider } from './identity-provider.js';
export {
  DEFAULT_FLOW_TIMEOUT_MS,
  MAX_STEP_UPS,
  type DiscoverResource,
  type IssuerBinding,
} from './machine-provider.js';
export type { ProtectedResource } from './protected-resource.js';
export type { MachineHttpOptions } from './token-endpoint.js';
export { TokenEndpointError } from './errors.js';
