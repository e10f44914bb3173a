/**
 * The harness's options and edges: static clients, opaque tokens, resources and token lifetime
 * changed at run time, an issuer with a path, discovery limited to one document, the headless
 * login's failures, close().
 */
import { decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import {
  authorizationUrl,
  insecure,
  providerKeys,
  REDIRECT_URI,
  registerPublicClient,
  RESOURCE,
  useProvider,
} from './oidc-support.js';

useProcessGuard();
const start = useProvider();

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
  const { op, as } = await start({ resources: RESOURCE, issuerPath: '/tenant/a' });
  const issuer = new URL(op.issuer);
  expect(issuer.pathname).toBe('/tenant/a');
  for (const algorithm of ['oidc', 'oauth2'] as const) {
    const metadata = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm, ...insecure }),
    );
    expect(metadata.issuer).toBe(op.issuer);
    expect(metadata.jwks_uri).toBe(op.jwksUri);
    expect(new URL(metadata.token_endpoint!).pathname).toBe('/tenant/a/token');
  }
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
  expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: op.issuer, aud: RESOURCE });
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
    const op = await startOidcProvider({ resources: RESOURCE, discovery });
    try {
      expect((await fetch(`${op.issuer}/.well-known/oauth-authorization-server`)).status).toBe(oauthStatus);
      expect((await fetch(`${op.issuer}/.well-known/openid-configuration`)).status).toBe(openidStatus);
    } finally {
      await op.close();
    }
  }
});

test("minted access tokens carry the provider's signature: valid, expired, or for another audience", async () => {
  const { op } = await start();
  const keys = await providerKeys(op);
  const verify = (token: string, audience = RESOURCE) =>
    jwtVerify(token, keys, { issuer: op.issuer, audience, typ: 'at+jwt', algorithms: ['RS256'] });
  const { payload } = await verify(await op.mintAccessToken());
  expect(payload).toMatchObject({ sub: 'alice', scope: 'mcp:read mcp:write', aud: RESOURCE });
  expect(payload.exp! - payload.iat!).toBe(300);
  await expect(verify(await op.mintAccessToken({}, { expiresIn: -60 }))).rejects.toBeInstanceOf(
    joseErrors.JWTExpired,
  );
  const elsewhere = await op.mintAccessToken({ aud: 'http://127.0.0.1:9/elsewhere', sub: 'mallory' });
  await expect(verify(elsewhere)).rejects.toBeInstanceOf(joseErrors.JWTClaimValidationFailed);
  expect((await verify(elsewhere, 'http://127.0.0.1:9/elsewhere')).payload.sub).toBe('mallory');
});

test("the provider's internal errors are collected for the test to see", async () => {
  const { op } = await start();
  expect(op.serverErrors).toEqual([]);
  const error = new Error('adapter down');
  op.provider.emit('server_error', {}, error);
  expect(op.serverErrors).toEqual([error]);
});

test('close() releases the port and is idempotent', async () => {
  const { op } = await start();
  await Promise.all([op.close(), op.close()]);
  await expect(fetch(`${op.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
});
