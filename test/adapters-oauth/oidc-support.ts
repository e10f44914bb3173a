/**
 * Shared by the harness tests: a provider per test (closed after it), and the client side of the
 * flows, done with oauth4webapi directly.
 */
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterEach } from 'vitest';
import { startOidcProvider, type OidcProvider, type OidcProviderOptions } from '../helpers/oidc-provider.js';

export const RESOURCE = 'http://127.0.0.1:9/mcp';
export const OTHER_RESOURCE = 'http://127.0.0.1:9/other-mcp';
export const REDIRECT_URI = 'http://127.0.0.1:7/callback'; // never contacted: the login stops at it
// Loopback http only: the provider runs without TLS for the test (see oidc-provider.ts).
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * Register an afterEach that closes the provider `start` last started, and return `start`:
 * a provider (resources RESOURCE and OTHER_RESOURCE unless given) and its discovered metadata.
 */
export function useProvider() {
  const state: { running?: OidcProvider | undefined } = {};
  afterEach(async () => {
    await state.running?.close();
    state.running = undefined;
  });
  return async (options: OidcProviderOptions = {}) => {
    await state.running?.close();
    const op = (state.running = await startOidcProvider({
      resources: [RESOURCE, OTHER_RESOURCE],
      ...options,
    }));
    const issuer = new URL(op.issuer);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    return { op, as };
  };
}

/**
 * The provider's published keys. (jose's createRemoteJWKSet would do as well, but its fetch timeout
 * is an AbortSignal.timeout whose 5 s timer outlives the test, which the process guard reports.)
 */
export async function providerKeys(op: OidcProvider) {
  const response = await fetch(op.jwksUri);
  return createLocalJWKSet((await response.json()) as JSONWebKeySet);
}

export async function registerPublicClient(as: oauth.AuthorizationServer): Promise<oauth.Client> {
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
export async function authorizationUrl(
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
