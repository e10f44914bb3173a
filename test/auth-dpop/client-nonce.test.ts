/**
 * Issue 27 dpop, the client's nonce rule (RFC 9449 §9): a 401 `use_dpop_nonce` is worth one
 * retry only for a request that sent a proof without that nonce; the nonce then goes into the
 * next proofs to that server. (DPoPSigner is internal: OAuthClientProvider and the machine
 * grants share it.)
 */
import { decodeJwt } from 'jose';
import { expect, test } from 'vitest';
import { MemoryTokenStore } from 'keel-mcp/client';
import type { AuthChallenge } from 'keel-mcp/core';
import { DPoPSigner } from '../../src/client/auth/index.js';

const url = new URL('https://mcp.example.com/mcp?x=1#f');

function nonceRefusal(nonce: string, error = 'use_dpop_nonce', status: 401 | 403 = 401): AuthChallenge {
  return {
    url,
    status,
    wwwAuthenticate: `DPoP error="${error}", algs="ES256"`,
    headers: new Headers({ 'dpop-nonce': nonce }),
  };
}

test('issue 27 dpop: one retry per new nonce, only for a request that sent a proof', async () => {
  // No proof sent for this request (a Bearer token): nothing to retry with a nonce.
  const bearerOnly = new DPoPSigner({}, new MemoryTokenStore());
  expect(bearerOnly.nonceChallenge(nonceRefusal('n0'), new AbortController().signal)).toBe(false);

  const signer = new DPoPSigner({}, new MemoryTokenStore());
  const request = new AbortController().signal;

  const first = await signer.requestHeaders(url, 'POST', 'tok', request);
  expect(first.authorization).toBe('DPoP tok');
  const claims = decodeJwt(first.dpop!);
  expect(claims).toMatchObject({ htm: 'POST', htu: 'https://mcp.example.com/mcp' });
  expect(claims.nonce).toBeUndefined();
  expect(signer.nonceChallenge(nonceRefusal('n1'), request)).toBe(true);

  const second = await signer.requestHeaders(url, 'POST', 'tok', request);
  expect(decodeJwt(second.dpop!).nonce).toBe('n1');
  expect(decodeJwt(second.dpop!).jti).not.toBe(claims.jti);
  // The proof carried n1 and was refused for n1 again: a retry would only be refused again.
  expect(signer.nonceChallenge(nonceRefusal('n1'), request)).toBe(false);
  // A newer nonce is worth another try.
  expect(signer.nonceChallenge(nonceRefusal('n2'), request)).toBe(true);
  // Other refusals are not nonce refusals.
  expect(signer.nonceChallenge(nonceRefusal('n3', 'invalid_token'), request)).toBe(false);
  expect(signer.nonceChallenge(nonceRefusal('n3', 'use_dpop_nonce', 403), request)).toBe(false);
});

test('issue 27 dpop: a nonce from a successful answer is used by the next proof to that origin only', async () => {
  const signer = new DPoPSigner({ persist: false }, new MemoryTokenStore());
  signer.remember(url, new Headers({ 'dpop-nonce': 'fresh' }));
  const signal = new AbortController().signal;
  const here = await signer.requestHeaders(new URL('https://mcp.example.com/other'), 'GET', 't', signal);
  expect(decodeJwt(here.dpop!)).toMatchObject({ nonce: 'fresh', htm: 'GET' });
  const elsewhere = await signer.requestHeaders(new URL('https://other.example.com/mcp'), 'GET', 't', signal);
  expect(decodeJwt(elsewhere.dpop!).nonce).toBeUndefined();
});
