/**
 * Issue 11, done-when 3 ("refreshes an expired token"), with the expiry seen by the server: the
 * access token a client program finds in its store at start is one the authorization server really
 * signed but that expired a minute ago, while the stored record still calls it fresh (a clock skew,
 * a machine that slept). Keel's
 * resource server refuses it (401 `invalid_token`); Keel's client then uses its refresh token
 * (oidc-provider rotates it), the same request goes through, and no second login happens.
 */
import { afterEach, expect, it } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { McpClient, MemoryTokenStore, OAuthClientProvider } from 'keel-mcp/client';
import { tokensKey } from '../../src/client/auth/store.js';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { serveProtected } from '../helpers/oidc-protected-server.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';

useProcessGuard();

let oidc: OidcProvider | undefined;
let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await oidc?.close();
  serving = oidc = undefined;
});

it('a server-side expired token: 401 invalid_token, one refresh (rotated), the call goes through', async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read' });
  const server = new McpServer({ name: 'protected', version: '1' });
  server.tool('whoami', { description: 'who' }, (_args, ctx) => ctx.auth?.subject ?? 'nobody');
  serving = await serveProtected(server, oidc);

  const exchanges: { url: string; grant?: string; status: number; challenge?: string }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : input.toString();
    const response = await fetch(input, init);
    exchanges.push({
      url,
      ...(init?.body instanceof URLSearchParams && { grant: init.body.get('grant_type') ?? '' }),
      status: response.status,
      ...(response.headers.has('www-authenticate') && {
        challenge: response.headers.get('www-authenticate')!,
      }),
    });
    return response;
  };
  const store = new MemoryTokenStore();
  const login = oidcLogin();
  // One "run" of a client program: a provider and a client over the shared store.
  const run = async (body: (client: McpClient) => Promise<void>): Promise<void> => {
    const auth = new OAuthClientProvider({
      clientMetadata: { client_name: 'expiry-e2e', redirect_uris: ['http://127.0.0.1:8976/callback'] },
      redirect: login,
      store,
      fetch: recording,
    });
    const client = new McpClient({ name: 'expiry-e2e', version: '1' });
    try {
      await within(
        client.connect(new StreamableHttpClientTransport(serving!.url, { auth, fetch: recording })),
        15_000,
        'connect',
      );
      await body(client);
    } finally {
      await client.close();
    }
  };
  const whoami = async (client: McpClient): Promise<unknown> =>
    (await within(client.callTool('whoami', {}), 10_000, 'whoami')).content;

  await run(async (client) => expect(await whoami(client)).toEqual([{ type: 'text', text: 'alice' }]));

  // Between runs the stored access token is swapped for one the provider really signed that
  // expired a minute ago, while the stored record says an hour is left: only the server can tell.
  const key = tokensKey(oidc.issuer, serving.url);
  const stored = JSON.parse((await store.get(key))!) as { refresh_token?: string };
  expect(stored.refresh_token).toBeDefined();
  const expired = await oidc.mintAccessToken({ aud: serving.url, scope: 'mcp:read' }, { expiresIn: -60 });
  await store.set(
    key,
    JSON.stringify({
      ...stored,
      access_token: expired,
      issued_at: Date.now(),
      expires_at: Date.now() + 3_600_000,
    }),
  );
  const before = exchanges.length;
  await run(async (client) => expect(await whoami(client)).toEqual([{ type: 'text', text: 'alice' }]));

  const after = exchanges.slice(before);
  // A new provider's first request goes without a token (it learns the issuer from the
  // challenge); the stored token then goes out and is refused as expired, exactly once.
  const refused = after.filter(
    (e) => e.url === serving!.url && e.challenge?.includes('error="invalid_token"'),
  );
  expect(refused).toHaveLength(1);
  expect(refused[0]!.challenge).toContain('The token has expired');
  expect(after.filter((e) => e.grant !== undefined).map((e) => e.grant)).toEqual(['refresh_token']);
  const rotated = JSON.parse((await store.get(key))!) as { refresh_token?: string; access_token: string };
  expect(rotated.refresh_token).toBeDefined();
  expect(rotated.refresh_token).not.toBe(stored.refresh_token);
  expect(rotated.access_token).not.toBe(expired);
  expect(login.prompts.filter((p) => p === 'login')).toHaveLength(1);
  expect(oidc.serverErrors).toEqual([]);
});
