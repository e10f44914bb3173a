/**
 * The discovery a machine grant uses when none is passed: the OAuth client's
 * ({@link discoverAuthorization}: the challenge's `resource_metadata`, path-based and root
 * protected resource metadata, then RFC 8414 / OpenID authorization server metadata, with the
 * issuer and resource checks), adapted to {@link DiscoverResource}.
 */
import { discoverAuthorization } from '../discovery.js';
import type { DiscoverResource } from './machine-provider.js';
import type { MachineHttpOptions } from './token-endpoint.js';

/**
 * Discovery with the grant's HTTP options.
 *
 * @example
 * const discover = defaultDiscovery({ fetch });
 */
export function defaultDiscovery(http: MachineHttpOptions): DiscoverResource {
  return async (challenge, signal) => {
    const found = await discoverAuthorization(challenge.url, {
      ...(challenge.wwwAuthenticate !== undefined && { wwwAuthenticate: challenge.wwwAuthenticate }),
      ...(http.fetch && { fetch: http.fetch }),
      signal,
    });
    const scopes = found.resourceMetadata?.scopes_supported;
    return {
      resource: found.resource,
      authorizationServer: found.authorizationServer,
      ...(scopes?.length ? { scopesSupported: scopes } : {}),
    };
  };
}
