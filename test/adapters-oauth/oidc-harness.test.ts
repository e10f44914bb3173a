/**
 * The e2e harness works: a real OpenID provider on loopback (test/helpers/oidc-provider.ts) and
 * the headless login (test/helpers/oidc-login.ts), driven here with oauth4webapi directly: dynamic
 * registration, authorization code + PKCE S256 with `resource`, a JWT access token verified with
 * jose against the provider's JWKS for the right audience, refresh with rotation, and the
 * client_credentials grant.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterEach, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';

useProcessGuard();

const RESOURCE = 'http://127.0.0.1:9/mcp';
const OTHER_RESOURCE = 'http://127.0.0.1:9/other-mcp';
const REDIRECT_URI = 'http://127.0.0.1:7/callback'; // never contacted: the login stops at it
// Loopback http only: the provider runs without TLS for the test (see oidc-provider.ts).
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let running: OidcProvider | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(options: Partial<Parameters<typeof startOidcProvider>[0]> = {}) {
  running = await startOidcProvider({ resources: [RESOURCE, OTHER_RESOURCE], ...options });
  const issuer = new URL(running.issuer);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
  );
  return { op: running, as };
}

/**
 * The provider's published keys. (jose's createRemoteJWKSet would do as well, but its fetch timeout
 * is an AbortSignal.timeout whose 5 s timer outlives the test, which the process guard reports.)
 */
async function providerKeys(op: OidcProvider) {
  const response = await fetch(op.jwksUri);
  return createLocalJWKSet((await response.json()) as JSONWebKeySet);
}

async function registerPublicClient(as: oauth.AuthorizationServer): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: 'keel harness test',
      application_type: 'native',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    insecure,
  );
  return await oauth.processDynamicClientRegistrationResponse(response);
}

/** The authorization URL a client builds; `pkce: false` leaves the challenge out. */
async function authorizationUrl(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  { scope = 'mcp:read offline_access', resource = RESOURCE, pkce = true } = {},
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope,
    state,
    resource,
    ...(pkce
      ? { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }
      : {}),
  }).toString();
  return { url, verifier, state };
}

test('discovery advertises what an MCP client needs: registration, S256 only, iss in responses, the grants', async () => {
  const { op, as } = await start();
  expect(as.issuer).toBe(op.issuer);
  expect(as.jwks_uri).toBe(op.jwksUri);
  expect(as.registration_endpoint).toBeDefined();
  expect(as.code_challenge_methods_supported).toEqual(['S256']);
  expect(as.authorization_response_iss_parameter_supported).toBe(true);
  expect(as.grant_types_supported).toEqual(
    expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
  );
  expect(as.scopes_supported).toEqual(expect.arrayContaining(['offline_access']));
  expect(op.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

test('register, log in headlessly with PKCE, get a JWT for the resource, verify it against the JWKS, refresh with rotation', async () => {
  const { op, as } = await start({ accessTokenTtl: 120 });
  const client = await registerPublicClient(as);
  const { url, verifier, state } = await authorizationUrl(as, client);

  const login = oidcLogin({ username: 'alice' });
  const callback = await within(login(url, new AbortController().signal), 10_000, 'headless login');
  expect(login.prompts).toEqual(['login', 'consent']);
  expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
  expect(callback.searchParams.get('iss')).toBe(op.issuer); // RFC 9207
  const params = oauth.validateAuthResponse(as, client, callback, state);

  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, {
      additionalParameters: { resource: RESOURCE },
      ...insecure,
    }),
  );
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.refresh_token).toBeDefined();

  // RFC 9068: typ at+jwt, audience = the MCP resource, checked with jose against the JWKS.
  const jwks = await providerKeys(op);
  const verify = (token: string, audience: string) =>
    jwtVerify(token, jwks, { issuer: op.issuer, audience, typ: 'at+jwt', algorithms: ['RS256'] });
  const { payload, protectedHeader } = await verify(tokens.access_token, RESOURCE);
  expect(protectedHeader.typ).toBe('at+jwt');
  expect(payload).toMatchObject({
    sub: 'alice',
    client_id: client.client_id,
    scope: 'mcp:read',
    aud: RESOURCE,
  });
  expect(payload.exp! - payload.iat!).toBe(120);
  await expect(verify(tokens.access_token, OTHER_RESOURCE)).rejects.toBeInstanceOf(
    joseErrors.JWTClaimValidationFailed,
  );

  // Refresh: a new access token and a new refresh token; the old refresh token is spent.
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
      additionalParameters: { resource: RESOURCE },
      ...insecure,
    }),
  );
  expect(refreshed.access_token).not.toBe(tokens.access_token);
  expect(refreshed.refresh_token).toBeDefined();
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  expect((await verify(refreshed.access_token, RESOURCE)).payload.sub).toBe('alice');
  const reused = oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
  );
  await expect(reused).rejects.toMatchObject({ error: 'invalid_grant' });
});

test('a second authorization with the same login reuses the session: consent only, for the new scope', async () => {
  const { as } = await start();
  const client = await registerPublicClient(as);
  const login = oidcLogin({ username: 'bob' });
  const first = await authorizationUrl(as, client, { scope: 'mcp:read' });
  await login(first.url, new AbortController().signal);
  const stepUp = await authorizationUrl(as, client, { scope: 'mcp:read mcp:write' });
  const callback = await login(stepUp.url, new AbortController().signal);
  expect(login.prompts).toEqual(['login', 'consent', 'consent']);
  const params = oauth.validateAuthResponse(as, client, callback, stepUp.state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      REDIRECT_URI,
      stepUp.verifier,
      {
        additionalParameters: { resource: RESOURCE },
        ...insecure,
      },
    ),
  );
  expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'bob', scope: 'mcp:read mcp:write' });
});

test('the provider refuses what an MCP deployment must refuse: no PKCE, an unknown resource, a denied consent', async () => {
  const { as } = await start();
  const client = await registerPublicClient(as);

  const noPkce = await authorizationUrl(as, client, { pkce: false });
  const refused = await oidcLogin()(noPkce.url, new AbortController().signal);
  expect(refused.searchParams.get('error')).toBe('invalid_request');
  expect(refused.searchParams.get('error_description')).toMatch(/PKCE/);

  // PKCE is required of confidential clients too (oidc-provider's default requires it of public ones only).
  const confidential = (await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' },
      insecure,
    ),
  )) as oauth.Client;
  const confidentialNoPkce = await authorizationUrl(as, confidential, { pkce: false });
  const alsoRefused = await oidcLogin()(confidentialNoPkce.url, new AbortController().signal);
  expect(alsoRefused.searchParams.get('error_description')).toMatch(/PKCE/);

  const unknown = await authorizationUrl(as, client, { resource: 'http://127.0.0.1:9/not-registered' });
  const target = await oidcLogin()(unknown.url, new AbortController().signal);
  expect(target.searchParams.get('error')).toBe('invalid_target');

  const denied = await authorizationUrl(as, client);
  const callback = await oidcLogin({ consent: 'deny' })(denied.url, new AbortController().signal);
  expect(callback.searchParams.get('error')).toBe('access_denied');
  expect(() => oauth.validateAuthResponse(as, client, callback, denied.state)).toThrow(
    oauth.AuthorizationResponseError,
  );
});

test('client_credentials: a registered confidential client gets a JWT for the resource, with a short TTL', async () => {
  const { op, as } = await start({ accessTokenTtl: 2 });
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'keel machine client',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      insecure,
    ),
  );
  const client = registered as oauth.Client;
  const secret = registered.client_secret as string;
  const tokens = await oauth.processClientCredentialsResponse(
    as,
    client,
    await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(secret),
      { resource: RESOURCE, scope: 'mcp:read' },
      insecure,
    ),
  );
  expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
  const { payload } = await jwtVerify(tokens.access_token, await providerKeys(op), {
    issuer: op.issuer,
    audience: RESOURCE,
  });
  expect(payload).toMatchObject({ client_id: client.client_id, scope: 'mcp:read' });
  expect(payload.exp! - payload.iat!).toBe(2);
});

test('statically registered clients and opaque tokens (for introspection) are options', async () => {
  const { as } = await start({
    accessTokenFormat: 'opaque',
    clients: [
      {
        client_id: 'machine',
        client_secret: 'machine-secret',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
  });
  const client: oauth.Client = { client_id: 'machine' };
  const auth = oauth.ClientSecretBasic('machine-secret');
  const tokens = await oauth.processClientCredentialsResponse(
    as,
    client,
    await oauth.clientCredentialsGrantRequest(
      as,
      client,
      auth,
      { resource: RESOURCE, scope: 'mcp:write' },
      insecure,
    ),
  );
  expect(tokens.access_token.split('.')).toHaveLength(1); // opaque, not a JWT
  const introspection = await oauth.processIntrospectionResponse(
    as,
    client,
    await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure),
  );
  expect(introspection).toMatchObject({
    active: true,
    aud: RESOURCE,
    scope: 'mcp:write',
    client_id: 'machine',
  });
});

test('resources can be added and the access token lifetime changed once the provider runs', async () => {
  const { op, as } = await start({ resources: [] });
  const late = 'http://127.0.0.1:9/late-mcp';
  const machine = (await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { grant_types: ['client_credentials'], response_types: [], redirect_uris: [] },
      insecure,
    ),
  )) as oauth.Client;
  const auth = oauth.ClientSecretBasic(machine.client_secret as string);
  const issue = async () =>
    oauth.processClientCredentialsResponse(
      as,
      machine,
      await oauth.clientCredentialsGrantRequest(as, machine, auth, { resource: late }, insecure),
    );
  await expect(issue()).rejects.toMatchObject({ error: 'invalid_target' });
  op.addResource(late);
  op.setAccessTokenTtl(1);
  const short = decodeJwt((await issue()).access_token);
  expect(short.aud).toBe(late);
  expect(short.exp! - short.iat!).toBe(1);
  op.setAccessTokenTtl(600);
  const long = decodeJwt((await issue()).access_token);
  expect(long.exp! - long.iat!).toBe(600);
  expect(() => op.setAccessTokenTtl(0)).toThrow(RangeError);
});

test('the headless login fails clearly: an error page it cannot get past, an aborted signal', async () => {
  const { as } = await start();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: 'nobody',
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
  }).toString();
  await expect(oidcLogin()(url, new AbortController().signal)).rejects.toThrow(
    /400 from \/auth: .*invalid_client/,
  );
  const client = await registerPublicClient(as);
  const { url: good } = await authorizationUrl(as, client);
  await expect(oidcLogin()(good, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
});

test('an issuer with a path (a tenant): every endpoint under it, metadata where the specs put it', async () => {
  running = await startOidcProvider({ resources: RESOURCE, issuerPath: '/tenant/a' });
  const issuer = new URL(running.issuer);
  expect(issuer.pathname).toBe('/tenant/a');
  for (const algorithm of ['oidc', 'oauth2'] as const) {
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm, ...insecure }),
    );
    expect(as.issuer).toBe(running.issuer);
    expect(as.jwks_uri).toBe(running.jwksUri);
    expect(new URL(as.token_endpoint!).pathname).toBe('/tenant/a/token');
  }
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const client = await registerPublicClient(as);
  const { url, state, verifier } = await authorizationUrl(as, client);
  const login = oidcLogin();
  const callback = await login(url, new AbortController().signal);
  expect(login.prompts).toEqual(['login', 'consent']);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      oauth.validateAuthResponse(as, client, callback, state),
      REDIRECT_URI,
      verifier,
      insecure,
    ),
  );
  expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: running.issuer, aud: RESOURCE });
  const status = async (path: string) => (await fetch(new URL(path, issuer))).status;
  expect(await status('/.well-known/openid-configuration/tenant/a')).toBe(200); // path-inserted OpenID form
  // Nothing outside the issuer path, and no metadata where no spec puts it.
  expect(await status('/.well-known/openid-configuration')).toBe(404);
  expect(await status('/.well-known/oauth-authorization-server')).toBe(404);
  expect(await status('/tenant/a/.well-known/oauth-authorization-server')).toBe(404);
  expect(await status('/tenant/ab/token')).toBe(404);
});

test('discovery can be limited to one kind of metadata document, so a client has to fall back', async () => {
  for (const [discovery, oauthStatus, openidStatus] of [
    ['openid', 404, 200],
    ['oauth', 200, 404],
    ['both', 200, 200],
  ] as const) {
    running = await startOidcProvider({ resources: RESOURCE, discovery });
    expect((await fetch(`${running.issuer}/.well-known/oauth-authorization-server`)).status).toBe(
      oauthStatus,
    );
    expect((await fetch(`${running.issuer}/.well-known/openid-configuration`)).status).toBe(openidStatus);
    await running.close();
  }
});

test('close() releases the port and is idempotent', async () => {
  const { op } = await start();
  await Promise.all([op.close(), op.close()]);
  await expect(fetch(`${op.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
});
