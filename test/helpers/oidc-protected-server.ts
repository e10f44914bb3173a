/**
 * A Keel server protected by Keel's resource server, trusting the test's oidc-provider: the
 * served URL (port 0) becomes the resource, the token audience and a resource the provider
 * issues tokens for. Shared by the end-to-end OAuth tests.
 */
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { JwtVerifier, type McpServer } from 'keel-mcp/server';
import type { OidcProvider } from './oidc-provider.js';

export function serveProtected(
  server: McpServer,
  as: OidcProvider,
  scopesSupported: readonly string[] = ['mcp:read'],
): Promise<HttpServing> {
  return serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    auth: (url) => {
      as.addResource(url);
      return {
        resource: url,
        authorizationServers: [as.issuer],
        verifier: new JwtVerifier({ issuer: as.issuer, audience: url, jwksUri: as.jwksUri }),
        scopesSupported,
      };
    },
  });
}
