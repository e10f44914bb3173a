/**
 * Issue 11, resource server: JWT access tokens over real HTTP (serveHttp on 127.0.0.1, keys made
 * here, a JWKS served by a tiny node:http server). Each bad token is its own test; every refusal
 * is checked for the exact status and challenge, and for not echoing the token.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { SignJWT, base64url } from 'jose';
import type { HttpServing } from 'keel-mcp/node';
import { JwtVerifier } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import {
  jwtAuth,
  KeyServer,
  mint,
  PRM_URL,
  RESOURCE,
  serveProtected,
  signingKey,
  type SigningKey,
} from './support.js';

useProcessGuard();

let keys: KeyServer;
let key: SigningKey;
let serving: HttpServing | undefined;

beforeAll(async () => {
  keys = await new KeyServer().start();
  key = await signingKey('k1');
  keys.keys = [key];
});
afterAll(() => keys.close());
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
  keys.keys = [key];
  keys.down = false;
});

async function start(verifier?: JwtVerifier): Promise<string> {
  serving = await serveProtected(jwtAuth(keys, {}, verifier));
  return serving.url;
}

/** POST initialize with `authorization`; returns status, challenge and body text. */
async function initialize(url: string, authorization?: string) {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const response = await post(url, initializeRequest(), { headers });
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    body: await response.text(),
  };
}

/** A 401 invalid_token for `token`, whose answer does not contain it. */
async function expectInvalidToken(token: string, description: RegExp): Promise<void> {
  const url = await start();
  const answer = await initialize(url, `Bearer ${token}`);
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(
    /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="https:\/\/mcp\.test\/\.well-known\/oauth-protected-resource\/mcp"$/,
  );
  expect(answer.challenge).toMatch(description);
  expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  expect(answer.body).not.toContain(token);
  expect(answer.challenge).not.toContain(token);
  expect(serving!.handler.sessionCount).toBe(0);
}

test('no token: 401 with the exact challenge (metadata URL, scope), a JSON-RPC error body, no session', async () => {
  const url = await start();
  const answer = await initialize(url);
  expect(answer.status).toBe(401);
  expect(answer.challenge).toBe(`Bearer resource_metadata="${PRM_URL}", scope="mcp"`);
  expect(JSON.parse(answer.body)).toEqual({
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Unauthorized: a Bearer access token is required' },
  });
  expect(serving!.handler.sessionCount).toBe(0);
});

test('a valid token: initialize is served and a session opens', async () => {
  const url = await start();
  const answer = await initialize(url, `Bearer ${await mint(keys.issuer, key)}`);
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body).result.protocolVersion).toBeDefined();
  expect(serving!.handler.sessionCount).toBe(1);
});

test('a malformed token (not a JWT): 401 invalid_token', async () => {
  await expectInvalidToken('not-a-jwt', /malformed/);
});

test('an expired token: 401 invalid_token', async () => {
  await expectInvalidToken(await mint(keys.issuer, key, { expiresIn: -120 }), /expired/);
});

test('a token without exp: 401 invalid_token', async () => {
  await expectInvalidToken(await mint(keys.issuer, key, { expiresIn: undefined }), /exp claim/);
});

test('a not-yet-valid token (nbf in 10 minutes): 401 invalid_token', async () => {
  const nbf = Math.floor(Date.now() / 1000) + 600;
  await expectInvalidToken(await mint(keys.issuer, key, { claims: { nbf } }), /nbf claim/);
});

test('a token issued in the future (iat in 10 minutes): 401 invalid_token', async () => {
  const iat = Math.floor(Date.now() / 1000) + 600;
  const token = await new SignJWT({ scope: 'mcp', iat })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(keys.issuer)
    .setAudience(RESOURCE)
    .setSubject('alice')
    .setExpirationTime(iat + 300)
    .sign(key.privateKey);
  await expectInvalidToken(token, /\(iat\)/);
});

test('a token signed by another key under the same kid: 401 invalid_token', async () => {
  const other = await signingKey('k1');
  await expectInvalidToken(await mint(keys.issuer, key, { key: other }), /signature/);
});

test('a token for another audience: 401 invalid_token', async () => {
  await expectInvalidToken(await mint(keys.issuer, key, { audience: 'https://other.test/mcp' }), /aud claim/);
});

test('a token from another issuer: 401 invalid_token', async () => {
  await expectInvalidToken(await mint(keys.issuer, key, { issuer: 'https://evil.test' }), /iss claim/);
});

test('alg "none" (an unsecured JWT): 401 invalid_token', async () => {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
  const payload = base64url.encode(
    JSON.stringify({ iss: keys.issuer, aud: RESOURCE, sub: 'alice', scope: 'mcp', iat: now, exp: now + 300 }),
  );
  await expectInvalidToken(`${header}.${payload}.`, /malformed|algorithm/);
});

test('HS256 "signed" with the public key as the secret: 401 invalid_token', async () => {
  const secret = new TextEncoder().encode(JSON.stringify(key.publicJwk));
  const token = await new SignJWT({ scope: 'mcp' })
    .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
    .setIssuer(keys.issuer)
    .setAudience(RESOURCE)
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(secret);
  await expectInvalidToken(token, /algorithm/);
});

test('a JWT of an unexpected type (typ "dpop+jwt"): 401 invalid_token', async () => {
  await expectInvalidToken(
    await mint(keys.issuer, key, { header: { typ: 'dpop+jwt' } }),
    /not an access token/,
  );
});

test('a plain JWT (typ "JWT") is accepted like an at+jwt', async () => {
  const url = await start();
  const answer = await initialize(url, `Bearer ${await mint(keys.issuer, key, { header: { typ: 'JWT' } })}`);
  expect(answer.status).toBe(200);
});

test('a huge Authorization header (9 KiB): 400 invalid_request, nothing verified', async () => {
  let verified = 0;
  const counting = {
    verify: () => {
      verified += 1;
      return Promise.resolve({ scopes: [] });
    },
  };
  serving = await serveProtected(jwtAuth(keys, {}, counting));
  const answer = await initialize(serving.url, `Bearer ${'a'.repeat(9 * 1024)}`);
  expect(answer.status).toBe(400);
  expect(answer.challenge).toBe(
    `Bearer error="invalid_request", error_description="The Authorization header is too large", resource_metadata="${PRM_URL}"`,
  );
  expect(verified).toBe(0);
});

test('a non-Bearer scheme (Basic): 401 with the plain challenge, no error code (RFC 6750 §3.1), so the client can discover OAuth', async () => {
  const url = await start();
  const answer = await initialize(url, `Basic ${btoa('user:pass')}`);
  expect(answer.status).toBe(401);
  expect(answer.challenge).toBe(`Bearer resource_metadata="${PRM_URL}", scope="mcp"`);
});

test('several spaces between Bearer and the token (RFC 7235 1*SP): accepted', async () => {
  const url = await start();
  expect((await initialize(url, `Bearer   ${await mint(keys.issuer, key)}`)).status).toBe(200);
});

test('a JwtVerifier whose audience is not auth.resource is refused at start, naming both', async () => {
  const verifier = new JwtVerifier({
    issuer: keys.issuer,
    audience: 'https://other.test/mcp',
    jwksUri: keys.jwksUri,
  });
  await expect(serveProtected(jwtAuth(keys, {}, verifier))).rejects.toThrow(
    `auth.verifier checks the audience "https://other.test/mcp", but auth.resource is "${RESOURCE}"`,
  );
});

test.each([
  ['"Bearer" without a token', 'Bearer'],
  ['two tokens', 'Bearer abc def'],
  ['a token with invalid characters', 'Bearer abc"def'],
])('a malformed Authorization header (%s): 400 invalid_request', async (_label, header) => {
  const url = await start();
  const answer = await initialize(url, header);
  expect(answer.status).toBe(400);
  expect(answer.challenge).toBe(
    `Bearer error="invalid_request", error_description="The Authorization header must be Bearer and one token", resource_metadata="${PRM_URL}"`,
  );
});

test('the JWKS endpoint down: 503 (the token may be fine), not 401', async () => {
  keys.down = true;
  const url = await start();
  const answer = await initialize(url, `Bearer ${await mint(keys.issuer, key)}`);
  expect(answer.status).toBe(503);
  expect(answer.challenge).toBeNull();
  expect(JSON.parse(answer.body).error.code).toBe(-32603);
});

test('key rotation: a token under a new kid refetches the JWKS once and is accepted', async () => {
  const verifier = new JwtVerifier({
    issuer: keys.issuer,
    audience: RESOURCE,
    jwksUri: keys.jwksUri,
    jwksCooldownMs: 0,
  });
  const url = await start(verifier);
  const before = keys.jwksFetches;
  expect((await initialize(url, `Bearer ${await mint(keys.issuer, key)}`)).status).toBe(200);
  expect(keys.jwksFetches).toBe(before + 1);
  // The issuer rotates: the new key is published, tokens are signed with it.
  const rotated = await signingKey('k2', 'ES256');
  keys.keys = [key, rotated];
  expect((await initialize(url, `Bearer ${await mint(keys.issuer, rotated)}`)).status).toBe(200);
  expect(keys.jwksFetches).toBe(before + 2);
  // Cached now: no further fetch.
  expect((await initialize(url, `Bearer ${await mint(keys.issuer, rotated)}`)).status).toBe(200);
  expect(keys.jwksFetches).toBe(before + 2);
});

test('without jwksUri, the JWKS is found through the issuer metadata (RFC 8414)', async () => {
  const url = await start(new JwtVerifier({ issuer: keys.issuer, audience: RESOURCE }));
  expect((await initialize(url, `Bearer ${await mint(keys.issuer, key)}`)).status).toBe(200);
});

test('JwtVerifier refuses symmetric algorithms and none at construction', () => {
  for (const algorithms of [['HS256'], ['none'], ['RS256', 'HS512'], []]) {
    expect(() => new JwtVerifier({ issuer: 'https://as.test', audience: RESOURCE, algorithms })).toThrow(
      TypeError,
    );
  }
});
