/**
 * issue 27 machine: enterprise-managed authorization (SEP-990) on the server side. The MCP
 * authorization server's ID-JAG checks (IdJagVerifier), one refusal per rule, with ID-JAGs minted
 * here with jose; and the MCP server accepting the access token issued for an ID-JAG (audience =
 * the ID-JAG's resource) while refusing the ID-JAG itself and a token for another resource.
 */
import { beforeAll, expect, test } from 'vitest';
import { SignJWT, type JWTPayload } from 'jose';
import {
  IdJagVerifier,
  ID_JAG_GRANT_PROFILE,
  InvalidGrantError,
  InvalidTokenError,
  JwtVerifier,
  TokenVerifierUnavailableError,
  type IdJagVerifierOptions,
} from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { KeyServer, mint, RESOURCE, signingKey, type SigningKey } from './support.js';

useProcessGuard();

const IDP = 'https://acme.idp.example';
const AS = 'https://auth.mcp.test';
const CLIENT = 'mcp-client';
let idpKey: SigningKey;
let otherKey: SigningKey;

beforeAll(async () => {
  idpKey = await signingKey('idp-1', 'ES256');
  otherKey = await signingKey('rogue', 'ES256');
});

function verifier(overrides: Partial<IdJagVerifierOptions> = {}): IdJagVerifier {
  return new IdJagVerifier({
    issuer: AS,
    identityProviders: [{ issuer: IDP, jwks: { keys: [idpKey.publicJwk] } }],
    resources: [RESOURCE],
    ...overrides,
  });
}

interface Jag {
  claims?: JWTPayload;
  typ?: string;
  key?: SigningKey;
  iat?: number;
  exp?: number;
  omit?: string[];
}

let counter = 0;
/** An ID-JAG as the IdP issues it (SEP-990 §4.3), with `overrides` applied. */
function idJag({ claims = {}, typ = 'oauth-id-jag+jwt', key = idpKey, iat, exp, omit = [] }: Jag = {}) {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = {
    iss: IDP,
    sub: 'U019488227',
    aud: AS,
    resource: RESOURCE,
    client_id: CLIENT,
    jti: `jag-${++counter}`,
    scope: 'files:read files:write',
    iat: iat ?? now,
    exp: exp ?? now + 300,
    ...claims,
  };
  for (const name of omit) delete payload[name];
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ }).sign(key.privateKey);
}

async function refusal(promise: Promise<unknown>): Promise<InvalidGrantError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidGrantError);
  expect((error as InvalidGrantError).oauthError).toBe('invalid_grant');
  return error as InvalidGrantError;
}

test('issue 27 machine: a valid ID-JAG is accepted, with what the access token is for', async () => {
  const grant = await verifier().verify(await idJag(), { clientId: CLIENT });
  expect(grant).toMatchObject({
    issuer: IDP,
    subject: 'U019488227',
    clientId: CLIENT,
    resource: RESOURCE,
    scopes: ['files:read', 'files:write'],
  });
  expect(ID_JAG_GRANT_PROFILE).toBe('urn:ietf:params:oauth:grant-profile:id-jag');
});

test('issue 27 machine: the scopes granted are the intersection of the requested and the ID-JAG scopes', async () => {
  const grant = await verifier().verify(await idJag(), { clientId: CLIENT, scope: 'files:read admin' });
  expect(grant.scopes).toEqual(['files:read']);
});

test('issue 27 machine: an ID-JAG is refused for each broken rule, naming the claim and never the assertion', async () => {
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, Promise<string>, RegExp, Partial<IdJagVerifierOptions>?][] = [
    ['access token typ', idJag({ typ: 'at+jwt' }), /typ/],
    ['untrusted issuer', idJag({ claims: { iss: 'https://evil.example' } }), /trusted identity provider/],
    ['another key', idJag({ key: otherKey }), /key of its issuer|signature/],
    ['another audience', idJag({ claims: { aud: 'https://auth.other.test' } }), /aud/],
    ['another client', idJag({ claims: { client_id: 'someone-else' } }), /client_id/],
    ['another resource', idJag({ claims: { resource: 'https://other.test/mcp' } }), /resource/],
    ['no resource', idJag({ omit: ['resource'] }), /resource/],
    ['expired', idJag({ iat: now - 400, exp: now - 100 }), /expired/],
    ['long-lived', idJag({ exp: now + 7200 }), /lives longer/],
    ['issued in the future', idJag({ iat: now + 600, exp: now + 700 }), /iat/],
    ['no jti', idJag({ omit: ['jti'] }), /jti/],
    ['no sub', idJag({ omit: ['sub'] }), /sub/],
    [
      'unknown scope',
      idJag({ claims: { scope: 'files:read root' } }),
      /scope/,
      { scopesSupported: ['files:read'] },
    ],
    ['not a JWT', Promise.resolve('not-a-jwt'), /not a JWT/],
  ];
  for (const [name, assertion, message, options] of cases) {
    const jag = await assertion;
    const error = await refusal(verifier(options).verify(jag, { clientId: CLIENT }));
    expect(error.message, name).toMatch(message);
    expect(error.message, name).not.toContain(jag);
  }
});

test('issue 27 machine: a request naming another resource than the ID-JAG is refused', async () => {
  const error = await refusal(
    verifier().verify(await idJag(), { clientId: CLIENT, resource: 'https://other.test/mcp' }),
  );
  expect(error.message).toMatch(/another resource/);
});

test('issue 27 machine: an ID-JAG is accepted once; its replay is refused', async () => {
  const idJags = verifier();
  const jag = await idJag();
  await idJags.verify(jag, { clientId: CLIENT });
  expect((await refusal(idJags.verify(jag, { clientId: CLIENT }))).message).toMatch(/already used/);
});

test('issue 27 machine: a refused ID-JAG does not use up its jti', async () => {
  const idJags = verifier();
  const jag = await idJag();
  await refusal(idJags.verify(jag, { clientId: 'someone-else' }));
  await expect(idJags.verify(jag, { clientId: CLIENT })).resolves.toMatchObject({ clientId: CLIENT });
});

test('issue 27 machine: symmetric algorithms and empty settings are refused when the verifier is made', () => {
  expect(() => verifier({ algorithms: ['HS256'] })).toThrow(TypeError);
  expect(() => verifier({ algorithms: ['none'] })).toThrow(TypeError);
  expect(() => verifier({ resources: [] })).toThrow(TypeError);
  expect(() => verifier({ identityProviders: [] })).toThrow(TypeError);
  expect(() => verifier({ issuer: '' })).toThrow(TypeError);
});

test('issue 27 machine: IdP keys come from its metadata; an unreachable IdP is unavailable, not a refusal', async () => {
  const idp = await new KeyServer().start();
  try {
    idp.keys = [idpKey];
    const idJags = verifier({ identityProviders: [{ issuer: idp.issuer }], timeoutMs: 2_000 });
    const grant = await idJags.verify(await idJag({ claims: { iss: idp.issuer } }), { clientId: CLIENT });
    expect(grant.issuer).toBe(idp.issuer);

    idp.down = true;
    const fresh = verifier({ identityProviders: [{ issuer: idp.issuer }], timeoutMs: 2_000 });
    await expect(
      fresh.verify(await idJag({ claims: { iss: idp.issuer } }), { clientId: CLIENT }),
    ).rejects.toBeInstanceOf(TokenVerifierUnavailableError);
  } finally {
    await idp.close();
  }
});

test('issue 27 machine: the MCP server accepts the token issued for an ID-JAG, not the ID-JAG, not another resource', async () => {
  const as = await new KeyServer().start();
  try {
    const asKey = await signingKey('as-1');
    as.keys = [asKey];
    const jwt = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri });
    const grant = await verifier().verify(await idJag(), { clientId: CLIENT });
    // The authorization server issues the access token audience-restricted to grant.resource.
    const accessToken = await mint(as.issuer, asKey, {
      audience: grant.resource,
      claims: { sub: grant.subject, client_id: grant.clientId, scope: grant.scopes.join(' ') },
    });
    await expect(jwt.verify(accessToken)).resolves.toMatchObject({
      subject: 'U019488227',
      clientId: CLIENT,
      scopes: ['files:read', 'files:write'],
    });
    const forOther = await mint(as.issuer, asKey, { audience: 'https://other.test/mcp' });
    await expect(jwt.verify(forOther)).rejects.toBeInstanceOf(InvalidTokenError);
    // An ID-JAG presented as an access token (even one the AS key signed) is not one.
    const jagAsToken = await mint(as.issuer, asKey, { header: { typ: 'oauth-id-jag+jwt' } });
    await expect(jwt.verify(jagAsToken)).rejects.toThrow(/not an access token/);
  } finally {
    await as.close();
  }
});
