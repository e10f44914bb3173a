/**
 * Issue 11, done-when 3 (the last clause): a token a real authorization server issued for one MCP
 * server is refused by another. oidc-provider on 127.0.0.1 issues RFC 9068 access tokens whose
 * audience is the resource the client asked for; two Keel servers each accept only their own
 * audience. Keel's client logs in to B; the exact token it sent to B, replayed to A, gets 401
 * `invalid_token`, and A never runs a handler. The same client then connects to A and gets a token
 * of A's own (credentials are kept per resource).
 */
import { afterEach, expect, it } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { McpClient, OAuthClientProvider } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { serveProtected } from '../helpers/oidc-protected-server.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';

useProcessGuard();

const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

let oidc: OidcProvider | undefined;
const servings: HttpServing[] = [];
afterEach(async () => {
  for (const serving of servings.splice(0)) await serving.close({ deadlineMs: 2_000 });
  await oidc?.close();
  oidc = undefined;
});

async function protectedServer(as: OidcProvider, name: string, calls: string[]): Promise<HttpServing> {
  const server = new McpServer({ name, version: '1' });
  server.tool('whoami', { description: 'who' }, (_args, ctx) => {
    calls.push(name);
    return `${name}:${ctx.auth?.subject ?? 'nobody'}`;
  });
  const serving = await serveProtected(server, as);
  servings.push(serving);
  return serving;
}

it("a real token for server B is refused by server A (401 invalid_token); A's own token works", async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read' });
  const calls: string[] = [];
  const a = await protectedServer(oidc, 'A', calls);
  const b = await protectedServer(oidc, 'B', calls);

  const sent: { url: string; authorization: string | null }[] = [];
  const recording: typeof fetch = (input, init) => {
    sent.push({
      url: input instanceof Request ? input.url : input.toString(),
      authorization: new Headers(init?.headers).get('authorization'),
    });
    return fetch(input, init);
  };
  const auth = new OAuthClientProvider({
    clientMetadata: { client_name: 'audience-e2e', redirect_uris: [REDIRECT_URI] },
    redirect: oidcLogin(),
  });
  const whoami = async (url: string): Promise<string> => {
    const client = new McpClient({ name: 'audience-e2e', version: '1' });
    try {
      await within(
        client.connect(new StreamableHttpClientTransport(url, { auth, fetch: recording })),
        15_000,
        'connect',
      );
      const result = await within(client.callTool('whoami', {}), 10_000, 'whoami');
      return (result.content[0] as { text: string }).text;
    } finally {
      await client.close();
    }
  };

  expect(await whoami(b.url)).toMatch(/^B:/);
  const tokenForB = sent.find(
    (s) => s.url === b.url && s.authorization?.startsWith('Bearer '),
  )?.authorization;
  expect(tokenForB).toBeDefined();

  // Replayed to A as is: refused before anything runs.
  const replay = await fetch(a.url, {
    method: 'POST',
    headers: {
      authorization: tokenForB!,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    }),
  });
  expect(replay.status).toBe(401);
  expect(replay.headers.get('www-authenticate')).toContain('error="invalid_token"');
  const body = await replay.text();
  expect(body).not.toContain(tokenForB!.slice('Bearer '.length));
  expect(calls).toEqual(['B']);

  // The same client asked for A gets a token for A (its own audience) and is let in.
  expect(await whoami(a.url)).toMatch(/^A:/);
  const tokenForA = sent
    .filter((s) => s.url === a.url && s.authorization?.startsWith('Bearer '))
    .at(-1)?.authorization;
  expect(tokenForA).toBeDefined();
  expect(tokenForA).not.toBe(tokenForB);
  expect(calls).toEqual(['B', 'A']);
  expect(oidc.serverErrors).toEqual([]);
});
