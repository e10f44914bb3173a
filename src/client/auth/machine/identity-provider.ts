/**
 * The enterprise IdP of cross-app access. Administrators configure it per organization (issuer,
 * the client's ID there, optionally the token endpoint); when the token endpoint is not given it
 * comes from the IdP's OpenID configuration, read and checked by oauth4webapi.
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from '../errors.js';
import { requestOptions } from '../http.js';
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
    throw new AuthorizationError('discovery', `the IdP issuer is not a URL: ${idp.issuer}`);
  }
  try {
    const options = requestOptions(issuer, { signal, ...(http.fetch && { fetch: http.fetch }) });
    const response = await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oidc' });
    return await oauth.processDiscoveryResponse(issuer, response);
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    if (signal.aborted) throw new AuthorizationError('aborted', 'authorization aborted');
    throw new AuthorizationError(
      'discovery',
      `cannot read the OpenID configuration of the IdP ${idp.issuer}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
