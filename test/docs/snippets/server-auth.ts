/**
 * README snippet: protecting a server (issue 11, resource server). Run by
 * test/auth-server/readme-example.test.ts against a JWKS served by the test.
 */
import { serveHttp, type HttpServing } from '../../../src/adapters/node/index.js';
import { JwtVerifier, McpServer } from '../../../src/server/index.js';

export async function protectServer(issuer: string, resource: string): Promise<HttpServing> {
  // #region protect-server
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  server.tool('whoami', { description: 'Who is calling' }, (_args, ctx) => ctx.auth?.subject ?? 'nobody');
  server.tool('upload', { description: 'Store a file', scopes: ['files:write'] }, () => 'stored');

  // resource: this endpoint's public URL, e.g. 'https://mcp.example.com/mcp'
  const serving = await serveHttp(server, {
    port: 0,
    auth: {
      resource,
      authorizationServers: [issuer],
      verifier: new JwtVerifier({ issuer, audience: resource }),
      scopesSupported: ['files:read'],
    },
  });
  // #endregion
  return serving;
}
