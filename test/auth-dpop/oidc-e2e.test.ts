/**
 * Issue 27 dpop, end to end: a Keel client with `dpop` against oidc-provider (DPoP on) and a Keel
 * resource server with `dpop`. The bound token works; the same token without its proof, as
 * Bearer, with another key's proof, or with a replayed proof is refused; and the nonce dance at
 * both the token endpoint (RFC 9449 §8) and the MCP server (§9) completes.
 */
import { afterEach, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { DPOP_EXTENSION_ID, McpClient, MemoryTokenStore, type FetchLike } from 'keel-mcp/client';
import { JwtVerifier, McpServer, type ResourceServerOptions } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import { provider } from '../client-auth/support/provider-kit.js';
import { proof, proofKey } from './support.js';

useProcessGuard();

let oidc: OidcProvider | undefined;
let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await oidc?.close();
  serving = oidc = undefined;
});

function serve(as: OidcProvider, dpop: NonNullable<ResourceServerOptions['dpop']>): Promise<HttpServing> {
  const server = new McpServer({ name: 'protected', version: '1' });
  // Answers 'read ok' to a client that declared the DPoP extension (SEP-1932), else 'undeclared'.
  server.tool('read', { description: 'read', scopes: ['mcp:read'] }, (_args, ctx) =>
    ctx.clientExtension(DPOP_EXTENSION_ID) ? 'read ok' : 'undeclared',
  );
  return serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    auth: (url) => {
      as.addResource(url);
      return {
        resource: url,
        authorizationServers: [as.issuer],
        verifier: new JwtVerifier({ issuer: as.issuer, audience: url, jwksUri: as.jwksUri }),
        scopesSupported: ['mcp:read'],
        dpop,
      };
    },
  });
}

interface Exchange {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly status: number;
  readonly challenge: string | null;
}

/** A fetch that records each request's headers and the answer's status and challenge. */
function recording(into: Exchange[]): FetchLike & typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    into.push({
      url: input instanceof Request ? input.url : input.toString(),
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      status: response.status,
      challenge: response.headers.get('www-authenticate'),
    });
    return response;
  };
}

async function connectAndRead(
  url: string,
  auth: ReturnType<typeof provider>,
  mcp: Exchange[],
): Promise<string> {
  const client = new McpClient({ name: 'e2e', version: '1' });
  for (const extension of auth.extensions) client.extend(extension);
  await within(
    client.connect(
      new StreamableHttpClientTransport(url, { auth, openGetStream: false, fetch: recording(mcp) }),
    ),
    10_000,
    'connect',
  );
  try {
    const result = await within(client.callTool('read', {}), 10_000, 'read');
    return (result.content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

it('issue 27 dpop: a token bound to the client key works; without its proof, as Bearer, with another key or a replayed proof it is refused', async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read' });
  serving = await serve(oidc, true);
  const as: Exchange[] = [];
  const mcp: Exchange[] = [];
  const auth = provider({ redirect: oidcLogin(), fetch: recording(as), dpop: true });
  expect(await connectAndRead(serving.url, auth, mcp)).toBe('read ok');

  const tokenRequests = as.filter((e) => e.url.endsWith('/token'));
  expect(tokenRequests.length).toBeGreaterThan(0);
  expect(tokenRequests.every((e) => e.headers.get('dpop') !== null)).toBe(true);
  const last = mcp.filter((e) => e.method === 'POST').at(-1)!;
  expect(last.status).toBe(200);
  const authorization = last.headers.get('authorization')!;
  expect(authorization).toMatch(/^DPoP /);
  const token = authorization.slice('DPoP '.length);
  const sentProof = last.headers.get('dpop')!;
  expect((decodeJwt(token).cnf as { jkt?: string }).jkt).toMatch(/^[\w-]{43}$/);

  const attempt = async (headers: Record<string, string>) => {
    const response = await post(serving!.url, initializeRequest(), { headers });
    await response.text();
    return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
  };
  const asBearer = await attempt({ authorization: `Bearer ${token}` });
  expect(asBearer.status).toBe(401);
  expect(asBearer.challenge).toMatch(/^DPoP error="invalid_token"/);

  const noProof = await attempt({ authorization: `DPoP ${token}` });
  expect(noProof.status).toBe(401);
  expect(noProof.challenge).toMatch(
    /^DPoP error="invalid_dpop_proof", error_description="The request has no DPoP proof"/,
  );

  const thief = await proofKey();
  const otherKey = await attempt({
    authorization: `DPoP ${token}`,
    dpop: await proof(thief, token, serving.url),
  });
  expect(otherKey.status).toBe(401);
  expect(otherKey.challenge).toMatch(/^DPoP error="invalid_dpop_proof", error_description="[^"]*another key/);

  const replayed = await attempt({ authorization: `DPoP ${token}`, dpop: sentProof });
  expect(replayed.status).toBe(401);
  expect(replayed.challenge).toMatch(/already used \(jti\)/);
  expect(oidc.serverErrors).toEqual([]);
});

it('issue 27 dpop: the client completes the nonce dance at the token endpoint and at the MCP server, once each', async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read', dpop: { nonce: true } });
  serving = await serve(oidc, { nonce: true });
  const as: Exchange[] = [];
  const mcp: Exchange[] = [];
  const auth = provider({ redirect: oidcLogin(), fetch: recording(as), dpop: true });
  expect(await connectAndRead(serving.url, auth, mcp)).toBe('read ok');

  const codeExchanges = as.filter((e) => e.url.endsWith('/token'));
  // The first exchange is refused for want of a nonce; the second carries it.
  expect(codeExchanges.map((e) => e.status)).toEqual([400, 200]);
  expect(decodeJwt(codeExchanges[1]!.headers.get('dpop')!).nonce).toEqual(expect.any(String));

  const nonceRefusals = mcp.filter((e) => e.status === 401 && /use_dpop_nonce/.test(e.challenge ?? ''));
  expect(nonceRefusals).toHaveLength(1);
  // Every request after the refusal carries the nonce it was given, and none is refused again.
  const after = mcp.slice(mcp.indexOf(nonceRefusals[0]!) + 1);
  expect(after.length).toBeGreaterThan(1);
  expect(
    after.every((e) => e.status !== 401 && typeof decodeJwt(e.headers.get('dpop')!).nonce === 'string'),
  ).toBe(true);
  expect(oidc.serverErrors).toEqual([]);
});

it('issue 27 dpop: a restarted client with the same store keeps its key, so its stored bound token still works', async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read' });
  serving = await serve(oidc, true);
  const store = new MemoryTokenStore();
  const login = oidcLogin();
  const first: Exchange[] = [];
  expect(await connectAndRead(serving.url, provider({ redirect: login, store, dpop: true }), first)).toBe(
    'read ok',
  );
  const as: Exchange[] = [];
  const second: Exchange[] = [];
  const restarted = provider({ redirect: login, store, dpop: true, fetch: recording(as) });
  expect(await connectAndRead(serving.url, restarted, second)).toBe('read ok');
  // No new authorization: the stored token, bound to the stored key, was accepted.
  expect(login.authorizations).toHaveLength(1);
  expect(as.filter((e) => e.url.endsWith('/token'))).toEqual([]);
  const jwk = (p: string | null) => JSON.stringify(decodeProtectedHeader(p!).jwk);
  expect(jwk(second.at(-1)!.headers.get('dpop'))).toBe(jwk(first.at(-1)!.headers.get('dpop')));
});

it('issue 27 dpop: a refresh carries a proof of the same key and gets a token bound to it again', async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read' });
  serving = await serve(oidc, true);
  const as: Exchange[] = [];
  const mcp: Exchange[] = [];
  let now = Date.now();
  const auth = provider({ redirect: oidcLogin(), fetch: recording(as), dpop: true, now: () => now });
  // Legacy era: a session, so close() sends a DELETE, whose proof names its own method.
  const client = new McpClient({ name: 'e2e', version: '1' }, { era: 'legacy' });
  for (const extension of auth.extensions) client.extend(extension);
  await within(
    client.connect(
      new StreamableHttpClientTransport(serving.url, { auth, openGetStream: false, fetch: recording(mcp) }),
    ),
    10_000,
    'connect',
  );
  const read = async () =>
    ((await within(client.callTool('read', {}), 10_000, 'read')).content as { text: string }[])[0]!.text;
  try {
    expect(await read()).toBe('read ok');
    // The client's clock moves past the token's expiry: the next request refreshes first.
    now += 3_600_000;
    expect(await read()).toBe('read ok');
  } finally {
    await client.close();
  }
  const deletes = mcp.filter((e) => e.method === 'DELETE');
  expect(deletes.map((e) => [e.status, decodeJwt(e.headers.get('dpop')!).htm])).toEqual([[200, 'DELETE']]);
  const tokenRequests = as.filter((e) => e.url.endsWith('/token'));
  expect(tokenRequests).toHaveLength(2);
  const keys = tokenRequests.map((e) => JSON.stringify(decodeProtectedHeader(e.headers.get('dpop')!).jwk));
  expect(keys[1]).toBe(keys[0]);
  const tokens = mcp
    .filter((e) => e.status === 200 && e.method === 'POST')
    .map((e) => e.headers.get('authorization')!.slice('DPoP '.length));
  const distinct = [...new Set(tokens)];
  expect(distinct).toHaveLength(2);
  expect(distinct.map((t) => (decodeJwt(t).cnf as { jkt: string }).jkt)).toEqual([
    expect.any(String),
    (decodeJwt(distinct[0]!).cnf as { jkt: string }).jkt,
  ]);
  expect(oidc.serverErrors).toEqual([]);
});
