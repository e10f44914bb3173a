/**
 * Issue 27 dpop, resource server: DPoP-bound JWT access tokens (RFC 9449 §7, SEP-1932) over real
 * HTTP. Each refusal reason of the proof and of the binding is its own case, checked for the
 * status and the exact `WWW-Authenticate` error; the nonce dance and the metadata too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { DEFAULT_DPOP_ALGORITHMS, type ResourceServerOptions } from 'keel-mcp/server';
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
} from '../auth-server/support.js';
import { proof, proofKey, type ProofKey } from './support.js';

useProcessGuard();

let keys: KeyServer;
let key: SigningKey;
let client: ProofKey;
let serving: HttpServing | undefined;

beforeAll(async () => {
  keys = await new KeyServer().start();
  key = await signingKey('k1');
  keys.keys = [key];
  client = await proofKey();
});
afterAll(() => keys.close());
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

async function start(dpop: ResourceServerOptions['dpop'] = true): Promise<string> {
  serving = await serveProtected(jwtAuth(keys, { dpop }));
  return serving.url;
}

/** A token bound to `bound` (cnf.jkt), or unbound. */
function token(bound: ProofKey | null = client): Promise<string> {
  return mint(keys.issuer, key, bound ? { claims: { cnf: { jkt: bound.jkt } } } : {});
}

async function initialize(url: string, headers: Record<string, string>) {
  const response = await post(url, initializeRequest(), { headers });
  await response.text();
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate') ?? '',
    nonce: response.headers.get('dpop-nonce'),
  };
}

const ALGS = `algs="${DEFAULT_DPOP_ALGORITHMS.join(' ')}"`;

test('issue 27 dpop: a bound token with a proof of its key is accepted', async () => {
  const url = await start();
  const t = await token();
  const answer = await initialize(url, {
    authorization: `DPoP ${t}`,
    dpop: await proof(client, t, RESOURCE),
  });
  expect(answer.status).toBe(200);
});

test('issue 27 dpop: without a token the challenge offers Bearer and DPoP with its algorithms', async () => {
  const url = await start();
  const answer = await initialize(url, {});
  expect(answer.status).toBe(401);
  expect(answer.challenge).toBe(
    `Bearer resource_metadata="${PRM_URL}", scope="mcp", DPoP ${ALGS}, resource_metadata="${PRM_URL}", scope="mcp"`,
  );
});

test('issue 27 dpop: a bound token sent as Bearer is refused with DPoP invalid_token', async () => {
  const url = await start();
  const answer = await initialize(url, { authorization: `Bearer ${await token()}` });
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(/^DPoP error="invalid_token", error_description="The token is DPoP-bound/);
  expect(answer.challenge).toContain(ALGS);
});

test('issue 27 dpop: an unbound Bearer token still works unless DPoP is required', async () => {
  const url = await start();
  expect((await initialize(url, { authorization: `Bearer ${await token(null)}` })).status).toBe(200);
});

test('issue 27 dpop: the DPoP scheme with an unbound token is refused with invalid_token', async () => {
  const url = await start();
  const t = await token(null);
  const answer = await initialize(url, {
    authorization: `DPoP ${t}`,
    dpop: await proof(client, t, RESOURCE),
  });
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(
    /^DPoP error="invalid_token", error_description="The token is not DPoP-bound"/,
  );
});

test("issue 27 dpop: a proof by another key than the token's is refused with invalid_dpop_proof", async () => {
  const url = await start();
  const t = await token();
  const thief = await proofKey();
  const answer = await initialize(url, { authorization: `DPoP ${t}`, dpop: await proof(thief, t, RESOURCE) });
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(/^DPoP error="invalid_dpop_proof", error_description="[^"]*another key/);
});

test('issue 27 dpop: a replayed proof (same jti) is refused', async () => {
  const url = await start();
  const t = await token();
  const once = await proof(client, t, RESOURCE);
  expect((await initialize(url, { authorization: `DPoP ${t}`, dpop: once })).status).toBe(200);
  const again = await initialize(url, { authorization: `DPoP ${t}`, dpop: once });
  expect(again.status).toBe(401);
  expect(again.challenge).toMatch(
    /^DPoP error="invalid_dpop_proof", error_description="[^"]*already used \(jti\)"/,
  );
});

describe('issue 27 dpop: each proof defect is refused with invalid_dpop_proof', () => {
  const hour = 3600;
  const cases: [string, (t: string) => Promise<string | undefined>, RegExp][] = [
    ['no proof', async () => undefined, /no DPoP proof/],
    [
      'two proofs',
      async (t) => `${await proof(client, t, RESOURCE)}, ${await proof(client, t, RESOURCE)}`,
      /more than one/,
    ],
    ['not a JWT', async () => 'not-a-jwt', /not a JWT/],
    ['typ is not dpop+jwt', (t) => proof(client, t, RESOURCE, { header: { typ: 'JWT' } }), /type dpop\+jwt/],
    [
      'a private key in jwk',
      (t) => proof(client, t, RESOURCE, { header: { jwk: { ...client.jwk, d: 'AAAA' } } }),
      /not a public key/,
    ],
    ['no jwk', (t) => proof(client, t, RESOURCE, { header: { jwk: undefined } }), /no jwk/],
    ['a bad signature', async (t) => `${(await proof(client, t, RESOURCE)).slice(0, -6)}AAAAAA`, /signature/],
    ['another method', (t) => proof(client, t, RESOURCE, { htm: 'GET' }), /method \(htm\)/],
    ['another URL', (t) => proof(client, t, 'https://elsewhere.test/mcp'), /URL \(htu\)/],
    ['an old iat', (t) => proof(client, t, RESOURCE, { iat: Math.floor(Date.now() / 1000) - hour }), /iat/],
    [
      'an iat in the future',
      (t) => proof(client, t, RESOURCE, { iat: Math.floor(Date.now() / 1000) + hour }),
      /iat/,
    ],
    ['no jti', (t) => proof(client, t, RESOURCE, { jti: undefined }), /no jti/],
    ['no ath', (t) => proof(client, t, RESOURCE, { ath: undefined }), /ath/],
    ['the ath of another token', (t) => proof(client, t, RESOURCE, { ath: 'x'.repeat(43) }), /ath/],
  ];
  test.each(cases)('%s', async (_name, make, description) => {
    const url = await start();
    const t = await token();
    const dpop = await make(t);
    const answer = await initialize(url, { authorization: `DPoP ${t}`, ...(dpop !== undefined && { dpop }) });
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^DPoP error="invalid_dpop_proof", error_description="/);
    expect(answer.challenge).toMatch(description);
    expect(answer.challenge).not.toContain(t);
  });

  test('an algorithm the server does not accept', async () => {
    const url = await start({ algorithms: ['ES384'] });
    const t = await token();
    const answer = await initialize(url, {
      authorization: `DPoP ${t}`,
      dpop: await proof(client, t, RESOURCE),
    });
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^DPoP error="invalid_dpop_proof", error_description="[^"]*algorithm/);
    expect(answer.challenge).toContain('algs="ES384"');
  });
});

test('issue 27 dpop: with nonces on, a proof without the nonce gets use_dpop_nonce and a DPoP-Nonce; with it, it passes', async () => {
  const url = await start({ nonce: true });
  const t = await token();
  const first = await initialize(url, { authorization: `DPoP ${t}`, dpop: await proof(client, t, RESOURCE) });
  expect(first.status).toBe(401);
  expect(first.challenge).toMatch(/^DPoP error="use_dpop_nonce"/);
  expect(first.nonce).toMatch(/^\d+\.[\w-]+$/);
  const forged = await initialize(url, {
    authorization: `DPoP ${t}`,
    dpop: await proof(client, t, RESOURCE, { nonce: `${first.nonce!.split('.')[0]}.AAAA` }),
  });
  expect(forged.challenge).toMatch(/^DPoP error="use_dpop_nonce"/);
  const second = await initialize(url, {
    authorization: `DPoP ${t}`,
    dpop: await proof(client, t, RESOURCE, { nonce: first.nonce! }),
  });
  expect(second.status).toBe(200);
});

test('issue 27 dpop: required DPoP refuses an unbound Bearer token and challenges with DPoP only', async () => {
  const url = await start({ required: true });
  const bearer = await initialize(url, { authorization: `Bearer ${await token(null)}` });
  expect(bearer.status).toBe(401);
  expect(bearer.challenge).toMatch(
    /^DPoP error="invalid_token", error_description="This resource requires a DPoP-bound token"/,
  );
  const none = await initialize(url, {});
  expect(none.challenge).toBe(`DPoP ${ALGS}, resource_metadata="${PRM_URL}", scope="mcp"`);
});

test('issue 27 dpop: the protected resource metadata advertises the proof algorithms and the requirement', async () => {
  const url = await start({ required: true, algorithms: ['ES256'] });
  const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
  expect(await response.json()).toMatchObject({
    dpop_signing_alg_values_supported: ['ES256'],
    dpop_bound_access_tokens_required: true,
  });
});

test('issue 27 dpop: without the dpop option the DPoP scheme is another scheme (the plain challenge)', async () => {
  serving = await serveProtected(jwtAuth(keys));
  const t = await token();
  const answer = await initialize(serving.url, {
    authorization: `DPoP ${t}`,
    dpop: await proof(client, t, RESOURCE),
  });
  expect(answer.status).toBe(401);
  expect(answer.challenge).toBe(`Bearer resource_metadata="${PRM_URL}", scope="mcp"`);
});

test('issue 27 dpop: an expired nonce is refused with use_dpop_nonce and a fresh one', async () => {
  const url = await start({ nonce: { lifetimeSeconds: 60 } });
  const t = await token();
  const first = await initialize(url, { authorization: `DPoP ${t}`, dpop: await proof(client, t, RESOURCE) });
  const nonce = first.nonce!;
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(Date.now() + 61_000);
    const late = await initialize(url, {
      authorization: `DPoP ${t}`,
      dpop: await proof(client, t, RESOURCE, { nonce }),
    });
    expect(late.status).toBe(401);
    expect(late.challenge).toMatch(/^DPoP error="use_dpop_nonce"/);
    expect(late.nonce).not.toBe(nonce);
    const fresh = await initialize(url, {
      authorization: `DPoP ${t}`,
      dpop: await proof(client, t, RESOURCE, { nonce: late.nonce! }),
    });
    expect(fresh.status).toBe(200);
  } finally {
    vi.useRealTimers();
  }
});

test('issue 27 dpop: the replay cache is bounded (replayCacheSize): past it the oldest jti is forgotten', async () => {
  const url = await start({ replayCacheSize: 1 });
  const t = await token();
  const first = await proof(client, t, RESOURCE);
  const send = async (dpop: string) => (await initialize(url, { authorization: `DPoP ${t}`, dpop })).status;
  expect(await send(first)).toBe(200);
  expect(await send(first)).toBe(401);
  expect(await send(await proof(client, t, RESOURCE))).toBe(200);
  // One entry: the second proof pushed the first out (its `iat` window is what still bounds it).
  expect(await send(first)).toBe(200);
});

test('issue 27 dpop: bad dpop options fail at start', () => {
  expect(() => jwtAuth(keys, { dpop: { algorithms: ['HS256'] } })).not.toThrow();
  return Promise.all([
    expect(serveProtected(jwtAuth(keys, { dpop: { algorithms: ['HS256'] } }))).rejects.toThrow(
      /only asymmetric/,
    ),
    expect(serveProtected(jwtAuth(keys, { dpop: { maxAgeSeconds: 0 } }))).rejects.toThrow(/positive integer/),
  ]);
});

test('issue 27 dpop: proofs sent with invalid tokens do not enter the replay cache (they cannot push real entries out)', async () => {
  const url = await start({ replayCacheSize: 1 });
  const t = await token();
  const first = await proof(client, t, RESOURCE);
  const send = async (authorization: string, dpop: string) =>
    (await initialize(url, { authorization, dpop })).status;
  expect(await send(`DPoP ${t}`, first)).toBe(200);
  const junk = 'junk.token.value';
  const stranger = await proofKey();
  expect(await send(`DPoP ${junk}`, await proof(stranger, junk, RESOURCE))).toBe(401);
  expect(await send(`DPoP ${t}`, first)).toBe(401);
});
