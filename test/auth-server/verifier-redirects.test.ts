/**
 * Issue 11 bad input "redirects to other hosts", server side (review 2 gap): a JWKS URL, an
 * issuer's metadata URL or an introspection endpoint that answers with a redirect to another host
 * is not followed. The verifier reports itself unavailable (a 503 at the HTTP layer, never a
 * 401 that blames the token), and the other host never hears from it (nor gets the token).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TokenVerifierUnavailableError, IntrospectionVerifier, JwtVerifier } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { mint, RESOURCE, signingKey, type SigningKey } from './support.js';

useProcessGuard();

let elsewhere: Server;
let elsewhereOrigin = '';
const elsewhereHits: string[] = [];
let redirector: Server;
let origin = '';
let key: SigningKey;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  key = await signingKey('k1', 'ES256');
  elsewhere = createServer((req, res) => {
    elsewhereHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [key.publicJwk], active: true, sub: 'mallory', aud: RESOURCE }));
  });
  elsewhereOrigin = await listen(elsewhere);
  // Every path answers 302 to the same path on the other host.
  redirector = createServer((req, res) => {
    req.resume();
    res.writeHead(302, { location: `${elsewhereOrigin}${req.url ?? '/'}`, connection: 'close' });
    res.end();
  });
  origin = await listen(redirector);
});

afterAll(async () => {
  for (const server of [elsewhere, redirector]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a JWKS URL that redirects to another host: unavailable, the other host is never asked', async () => {
  const verifier = new JwtVerifier({ issuer: origin, audience: RESOURCE, jwksUri: `${origin}/jwks` });
  const token = await mint(origin, key);
  await expect(verifier.verify(token)).rejects.toBeInstanceOf(TokenVerifierUnavailableError);
  expect(elsewhereHits).toEqual([]);
});

test('an issuer whose metadata redirects to another host: unavailable, the other host is never asked', async () => {
  const verifier = new JwtVerifier({ issuer: origin, audience: RESOURCE });
  const token = await mint(origin, key);
  await expect(verifier.verify(token)).rejects.toBeInstanceOf(TokenVerifierUnavailableError);
  expect(elsewhereHits).toEqual([]);
});

test('an introspection endpoint that redirects to another host: unavailable, the token does not travel', async () => {
  const verifier = new IntrospectionVerifier({
    endpoint: `${origin}/introspect`,
    clientId: 'rs',
    clientSecret: 'secret',
    audience: RESOURCE,
  });
  await expect(verifier.verify('opaque-token-value')).rejects.toBeInstanceOf(TokenVerifierUnavailableError);
  expect(elsewhereHits).toEqual([]);
});
