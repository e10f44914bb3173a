/**
 * Cross-app access (SEP-990) against an IdP and an authorization server on loopback: the token
 * exchange at the IdP, then the JWT bearer grant at the MCP authorization server, field by field.
 */
import { inspect } from 'node:util';
import { afterEach, expect, test } from 'vitest';
import { crossAppAccessAuth, TokenEndpointError } from 'keel-mcp/client';
import { useProcessGuard } from '../helpers/guard.js';
import {
  refusal,
  resourceAt,
  startMockServer,
  tokenAnswer,
  type MockAnswer,
  type MockServer,
  type RecordedRequest,
} from './mock-as.js';

useProcessGuard();

const signal = new AbortController().signal;
const url = new URL('https://mcp.example.com/mcp');
const ID_TOKEN = 'header.id-token-payload.signature';
const ID_JAG = 'header.id-jag-payload.signature';
let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One loopback server playing both parties: the IdP under /idp, the MCP AS at the root. */
async function parties(idpToken: (request: RecordedRequest) => MockAnswer = () => idJagAnswer()) {
  server = await startMockServer((request) => {
    if (request.path === '/idp/.well-known/openid-configuration') {
      return { body: { issuer: `${server!.url}/idp`, token_endpoint: `${server!.url}/idp/token` } };
    }
    if (request.path === '/idp/token') return idpToken(request);
    if (request.path === '/token') return tokenAnswer('mcp-access-token');
    return { status: 404, body: { error: 'not_found' } };
  });
  return server;
}

function idJagAnswer(extra: Record<string, unknown> = {}): MockAnswer {
  return {
    body: {
      access_token: ID_JAG,
      issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      token_type: 'N_A',
      ...extra,
    },
  };
}

function provider(mock: MockServer, idp: { tokenEndpoint?: boolean; clientSecret?: string } = {}) {
  return crossAppAccessAuth({
    issuer: mock.url,
    credentials: { clientId: 'mcp-client', clientSecret: 'mcp-secret' },
    identityProvider: {
      issuer: `${mock.url}/idp`,
      clientId: 'idp-client',
      ...(idp.tokenEndpoint === false ? {} : { tokenEndpoint: `${mock.url}/idp/token` }),
      ...(idp.clientSecret ? { clientSecret: idp.clientSecret } : {}),
    },
    idToken: async () => ID_TOKEN,
    discover: async () => resourceAt(mock),
  });
}

test('exchanges the ID token for an ID-JAG at the IdP, then the ID-JAG for an access token', async () => {
  const mock = await parties();
  const auth = provider(mock);
  expect(await auth.challenge(refusal(401, 'Bearer scope="files:read"'), signal)).toBe(true);
  expect(await auth.authorization(url, signal)).toBe('Bearer mcp-access-token');

  expect(mock.requests.map((r) => r.path)).toEqual(['/idp/token', '/token']);
  const [exchange, bearer] = mock.requests;
  expect(exchange!.form).toEqual({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    client_id: 'idp-client',
    subject_token: ID_TOKEN,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    audience: mock.url,
    resource: 'https://mcp.example.com/mcp',
    scope: 'files:read',
  });
  expect(exchange!.authorization).toBeUndefined();
  expect(bearer!.form).toEqual({
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: ID_JAG,
    scope: 'files:read',
  });
  expect(bearer!.authorization).toBe(`Basic ${btoa('mcp-client:mcp-secret')}`);
});

test('a confidential IdP client authenticates with HTTP Basic', async () => {
  const mock = await parties();
  await provider(mock, { clientSecret: 'idp-secret' }).challenge(refusal(401), signal);
  expect(mock.requests[0]!.authorization).toBe(`Basic ${btoa('idp-client:idp-secret')}`);
  expect(mock.requests[0]!.form.client_id).toBeUndefined();
});

test('without a configured token endpoint the IdP OpenID configuration is read', async () => {
  const mock = await parties();
  await provider(mock, { tokenEndpoint: false }).challenge(refusal(401), signal);
  expect(mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    'GET /idp/.well-known/openid-configuration',
    'POST /idp/token',
    'POST /token',
  ]);
});

test('an IdP that issues something other than an ID-JAG is refused before the AS sees it', async () => {
  const mock = await parties(() =>
    idJagAnswer({ issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' }),
  );
  const error = await provider(mock)
    .challenge(refusal(401), signal)
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ name: 'AuthorizationError', reason: 'token' });
  expect((error as Error).message).toContain('not an ID-JAG');
  expect(inspect(error, { depth: 10 })).not.toContain(ID_JAG);
  expect(mock.requests.map((r) => r.path)).toEqual(['/idp/token']);
});

test('an IdP policy refusal is a typed error naming the OAuth error, not the ID token', async () => {
  const mock = await parties(() => ({
    status: 400,
    body: { error: 'invalid_grant', error_description: 'user not allowed' },
  }));
  const error = await provider(mock)
    .challenge(refusal(401), signal)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TokenEndpointError);
  expect(error).toMatchObject({ reason: 'token', oauthError: 'invalid_grant', status: 400 });
  expect(inspect(error, { depth: 10 })).not.toContain(ID_TOKEN);
});
