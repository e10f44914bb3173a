/**
 * The enterprise IdP of cross-app access. Administrators configure it per organization (issuer,
 * the client's ID there, optionally the token endpoint); when the token endpoint is not given it
 * comes from the IdP's OpenID configuration, read and checked by oauth4webapi.
 */
import * as oauth from 'oauth4webapi';
import { machineAuthError } from './errors.js';
import type { MachineHttpOptions } from './token-endpoint.js';

/**
 * An enterprise identity provider.
 *
 * @example
 * const idp: IdentityProvider = { issuer: 'https://idp.example.com', clientId: 'mcp-client', tokenEndpoint: 'https://idp.example.com/token' };
 */
export interface IdentityProvider {
  /** The IdP's issuer identifier. */
  readonly issuer: string;
  /** The client's ID at the IdP. */
  readonly clientId: string;
  /** The client's secret at the IdP, if it has one (sent with HTTP Basic); else a public client. */
  readonly clientSecret?: string;
  /** The IdP's token endpoint; default: `token_endpoint` of its OpenID configuration. */
  readonly tokenEndpoint?: string;
}

/**
 * The IdP's metadata: what was configured, or its OpenID configuration.
 *
 * @example
 * const as = await identityProviderMetadata({ issuer, clientId }, {}, signal);
 */
export async function identityProviderMetadata(
  idp: IdentityProvider,
  http: MachineHttpOptions,
  signal: AbortSignal,
): Promise<oauth.AuthorizationServer> {
  if (idp.tokenEndpoint) return { issuer: idp.issuer, token_endpoint: idp.tokenEndpoint };
  let issuer: URL;
  try {
    issuer = new URL(idp.issuer);
  } catch {
    throw machineAuthError('invalid_configuration', `The IdP issuer is not a URL: ${idp.issuer}`);
  }
  try {
    const response = await oauth.discoveryRequest(issuer, {
      algorithm: 'oidc',
      signal,
      [oauth.allowInsecureRequests]: http.allowInsecureHttp === true,
      ...(http.fetch ? { [oauth.customFetch]: http.fetch } : {}),
    });
    return await oauth.processDiscoveryResponse(issuer, response);
  } catch (error) {
    throw machineAuthError(
      'invalid_configuration',
      `Cannot read the OpenID configuration of the IdP ${idp.issuer}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
