/**
 * OAuthClientProvider against a real authorization server (oidc-provider, OpenID Certified) and
 * Keel's own resource server: dynamic registration, a headless login, tools called, a step-up for
 * a tool that needs more scope, a refresh (rotating) once the client considers its token expired.
 */
import { afterEach, expect, it } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { Client, type FetchLike } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { serveProtected } from '../helpers/oidc-protected-server.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';
import { provider } from './support/provider-kit.js';

useProcessGuard();

let oidc: OidcProvider | undefined;
let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await oidc?.close();
  serving = oidc = undefined;
});

it('registers, logs in, calls tools, steps up and refreshes against oidc-provider and a Keel resource server', async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read mcp:write' });
  const as = oidc;
  const server = new McpServer({ name: 'protected', version: '1' });
  server.tool('read', { description: 'read', scopes: ['mcp:read'] }, () => 'read ok');
  server.tool('write', { description: 'write', scopes: ['mcp:write'] }, () => 'write ok');
  serving = await serveProtected(server, as);

  const grants: string[] = [];
  const recording: FetchLike = async (input, init) => {
    if (String(input).includes('/token') && init?.body instanceof URLSearchParams)
      grants.push(init.body.get('grant_type') ?? '');
    return fetch(input, init);
  };
  let now = Date.now();
  const login = oidcLogin();
  const auth = provider({ redirect: login, fetch: recording, now: () => now });
  const client = new Client({ name: 'e2e', version: '1' });
  await within(
    client.connect(new StreamableHttpClientTransport(serving.url, { auth, openGetStream: false })),
    10_000,
    'connect',
  );
  try {
    const call = async (name: string) =>
      (
        (await within(client.request('tools/call', { name, arguments: {} }), 10_000, name)).content as {
          text: string;
        }[]
      )[0]!.text;
    expect(await call('read')).toBe('read ok');
    expect(await call('write')).toBe('write ok');
    // The client's clock moves past the token's expiry: the next request refreshes first.
    now += 3_600_000;
    expect(await call('read')).toBe('read ok');
  } finally {
    await client.close();
  }
  expect(grants).toEqual(['authorization_code', 'authorization_code', 'refresh_token']);
  expect(login.prompts.filter((p) => p === 'login')).toHaveLength(1);
  expect(login.authorizations.map((u) => u.searchParams.get('scope'))).toEqual([
    'mcp:read offline_access',
    'mcp:read offline_access mcp:write',
  ]);
  expect(as.serverErrors).toEqual([]);
});
