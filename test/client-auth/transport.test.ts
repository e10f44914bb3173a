/**
 * The provider through the real HTTP client transport, against a Keel server behind a bearer gate
 * (a fetch wrapper that accepts only tokens the mock authorization server issued for this server,
 * with the scopes each method needs), so every request of the client goes through the OAuth flow.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { type OAuthClientProvider } from 'keel-mcp/client';
import { AuthorizationError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connectClient, outcome } from '../http-client/support/connect.js';
import { startMockOAuth, type MockOAuth, type MockOAuthConfig } from './support/mock-oauth.js';
import { provider } from './support/provider-kit.js';

useProcessGuard();

let serving: HttpServing | undefined;
let oauth: MockOAuth | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await oauth?.close();
  serving = oauth = undefined;
});

interface World {
  url: string;
  m: MockOAuth;
  gate: typeof fetch;
  refusals: number[];
}

async function world(config: Partial<MockOAuthConfig> = {}): Promise<World> {
  const server = new McpServer({ name: 'protected', version: '1' });
  server.tool('read', { description: 'read' }, () => ({ content: [{ type: 'text', text: 'read ok' }] }));
  server.tool('write', { description: 'write' }, () => ({ content: [{ type: 'text', text: 'write ok' }] }));
  serving = await serveHttp(server, { port: 0, host: '127.0.0.1' });
  const url = serving.url;
  const m = await startMockOAuth(() => url, config);
  oauth = m;
  const refusals: number[] = [];
  const gate: typeof fetch = async (input, init) => {
    const body =
      typeof init?.body === 'string'
        ? (JSON.parse(init.body) as { method?: string; params?: { name?: string } })
        : {};
    const needed = body.method === 'tools/call' && body.params?.name === 'write' ? 'mcp:write' : 'mcp:read';
    const header = new Headers(init?.headers).get('authorization') ?? '';
    const issued = m.tokens.get(header.replace(/^Bearer /, ''));
    const challenge = `Bearer resource_metadata="${m.prmUrl}", scope="${needed}"`;
    const refuse = (status: 401 | 403, extra = ''): Response => {
      refusals.push(status);
      return new Response(
        JSON.stringify({ error: status === 401 ? 'invalid_token' : 'insufficient_scope' }),
        {
          status,
          headers: { 'content-type': 'application/json', 'www-authenticate': `${challenge}${extra}` },
        },
      );
    };
    // A token for another resource (audience) is as good as none.
    if (!issued || issued.resource !== url) return refuse(401);
    if (!issued.scopes.includes(needed)) return refuse(403, ', error="insufficient_scope"');
    return fetch(input, init);
  };
  return { url, m, gate, refusals };
}

const text = (result: Record<string, unknown>): string => (result.content as { text: string }[])[0]!.text;

describe('OAuthClientProvider through StreamableHttpClientTransport', () => {
  it('connects, calls a tool, and steps up for the one that needs more scope', async () => {
    const { url, m, gate, refusals } = await world();
    const auth: OAuthClientProvider = provider();
    const { client } = await connectClient(url, { auth, fetch: gate, openGetStream: false });
    expect(text(await client.request('tools/call', { name: 'read', arguments: {} }))).toBe('read ok');
    expect(text(await client.request('tools/call', { name: 'write', arguments: {} }))).toBe('write ok');
    await client.close();
    expect(refusals).toEqual([401, 403]);
    expect(m.registerRequests()).toHaveLength(1);
    expect(m.authorizeRequests().map((r) => r.query.get('scope'))).toEqual([
      'mcp:read',
      'mcp:read mcp:write',
    ]);
  });

  it('concurrent requests refused together share one refresh', async () => {
    const { url, m, gate, refusals } = await world();
    const { client } = await connectClient(url, { auth: provider(), fetch: gate, openGetStream: false });
    m.tokens.clear(); // the server forgets every access token; refresh tokens stay good
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.request('tools/call', { name: 'read', arguments: {} })),
    );
    expect(results.map(text)).toEqual(Array(5).fill('read ok'));
    await client.close();
    expect(m.tokenRequests().map((r) => r.form.get('grant_type'))).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
    expect(m.authorizeRequests()).toHaveLength(1);
    expect(refusals.filter((s) => s === 401).length).toBeGreaterThanOrEqual(2);
  });

  it('a failed flow fails the request with the AuthorizationError', async () => {
    const { url, gate } = await world({ iss: 'wrong' });
    const error = await outcome(connectClient(url, { auth: provider(), fetch: gate, openGetStream: false }));
    let found: unknown = error;
    while (found instanceof Error && !(found instanceof AuthorizationError)) found = found.cause;
    expect(found).toBeInstanceOf(AuthorizationError);
    expect((found as AuthorizationError).reason).toBe('invalid-callback');
  });
});
