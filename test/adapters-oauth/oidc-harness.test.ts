/**
 * The e2e harness works: a real OpenID provider on loopback (test/helpers/oidc-provider.ts) and
 * the headless login (test/helpers/oidc-login.ts), driven here with oauth4webapi directly: dynamic
 * registration, authorization code + PKCE S256 with `resource`, a JWT access token verified with
 * jose against the provider's JWKS for the right audience, refresh with rotation, and the
 * client_credentials grant.
 */
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import {
  authorizationUrl,
  insecure,
  OTHER_RESOURCE,
  providerKeys,
  REDIRECT_URI,
  registerPublicClient,
  RESOURCE,
  useProvider,
} from './oidc-support.js';

useProcessGuard();
const start = useProvider();

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
  expect(op.serverErrors).toEqual([]);
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
