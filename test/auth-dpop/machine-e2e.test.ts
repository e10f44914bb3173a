/**
 * Issue 27 dpop, machine grants: `clientCredentialsAuth({ dpop: true })` against oidc-provider
 * (DPoP on, a confidential client) and a Keel resource server that requires DPoP and a nonce. The
 * token is bound to the provider's key and every request carries a proof; the server's nonce is
 * asked for once and honoured after.
 */
import { afterEach, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { clientCredentialsAuth, McpClient } from 'keel-mcp/client';
import { JwtVerifier, McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';

useProcessGuard();

let oidc: OidcProvider | undefined;
let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await oidc?.close();
  serving = oidc = undefined;
});

it('issue 27 dpop: the client credentials grant with dpop gets a bound token and passes a DPoP-only server with nonces', async () => {
  const secret = 'a-long-enough-client-secret-for-the-test-0123456789';
  oidc = await startOidcProvider({
    scopes: 'mcp:read',
    clients: [
      {
        client_id: 'svc',
        client_secret: secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
  });
  const as = oidc;
  const server = new McpServer({ name: 'protected', version: '1' });
  server.tool('read', { description: 'read', scopes: ['mcp:read'] }, () => 'read ok');
  serving = await serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    auth: (url) => {
      as.addResource(url);
      return {
        resource: url,
        authorizationServers: [as.issuer],
        verifier: new JwtVerifier({ issuer: as.issuer, audience: url, jwksUri: as.jwksUri }),
        scopesSupported: ['mcp:read'],
        dpop: { required: true, nonce: true },
      };
    },
  });
  const sent: { status: number; headers: Headers; challenge: string | null }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    sent.push({
      status: response.status,
      headers: new Headers(init?.headers),
      challenge: response.headers.get('www-authenticate'),
    });
    return response;
  };
  const auth = clientCredentialsAuth({
    issuer: as.issuer,
    credentials: { clientId: 'svc', clientSecret: secret },
    dpop: true,
  });
  const client = new McpClient({ name: 'machine', version: '1' });
  await within(
    client.connect(
      new StreamableHttpClientTransport(serving.url, { auth, openGetStream: false, fetch: recording }),
    ),
    10_000,
    'connect',
  );
  try {
    const result = await within(client.callTool('read', {}), 10_000, 'read');
    expect((result.content as { text: string }[])[0]!.text).toBe('read ok');
  } finally {
    await client.close();
  }
  const authorized = sent.filter((e) => e.headers.get('authorization') !== null);
  expect(
    authorized.every((e) => /^DPoP /.test(e.headers.get('authorization')!) && e.headers.get('dpop')),
  ).toBe(true);
  const token = authorized[0]!.headers.get('authorization')!.slice('DPoP '.length);
  expect((decodeJwt(token).cnf as { jkt?: string }).jkt).toMatch(/^[\w-]{43}$/);
  expect(sent.filter((e) => /use_dpop_nonce/.test(e.challenge ?? ''))).toHaveLength(1);
  expect(as.serverErrors).toEqual([]);
});
