/**
 * Machine-to-machine authorization for the HTTP client transport: the client credentials grant
 * enterprise-managed cross-app access and workload identity federation, each an `HttpAuthProvider`
 * that lists the extensions to declare.
 */
export { clientCredentialsAuth, type ClientCredentialsAuthOptions } from './client-credentials.js';
export { crossAppAccessAuth, type CrossAppAccessAuthOptions } from './cross-app-access.js';
export { workloadIdentityAuth, type WorkloadIdentityAuthOptions } from './workload-identity.js';
export type { PlatformToken, PlatformTokenFunction, PlatformTokenRequest } from './platform-token.js';
export {
  CLIENT_CREDENTIALS_EXTENSION_ID,
  ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID,
  WORKLOAD_IDENTITY_EXTENSION_ID,
  declareAuthExtensions,
  type MachineAuthProvider,
} from './extensions.js';
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
