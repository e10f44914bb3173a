/**
 * The desktop flow end to end against a real provider: a registered loopback redirect URI with
 * its port, a "browser" (the headless login) that lands on the loopback listener, and the code
 * exchanged for a token.
 */
import * as oauth from 'oauth4webapi';
import { expect, test } from 'vitest';
import { loopbackRedirect } from 'keel-mcp/node';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';

useProcessGuard();

const RESOURCE = 'http://127.0.0.1:9/mcp';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

test('loopbackRedirect catches the redirect of a real authorization server', async () => {
  const op = await startOidcProvider({ resources: RESOURCE });
  try {
    const issuer = new URL(op.issuer);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
    );
    const browserErrors: unknown[] = [];
    const loopback = await loopbackRedirect({
      // The "browser": follows the authorization URL through the login, then loads the callback.
      openBrowser: async (url) => {
        const callback = await oidcLogin({ username: 'carol' })(url, new AbortController().signal);
        await (await fetch(callback)).text();
      },
      onBrowserError: (error) => void browserErrors.push(error),
    });
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          application_type: 'native',
          redirect_uris: [loopback.redirectUri],
          token_endpoint_auth_method: 'none',
        },
        insecure,
      ),
    );
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: loopback.redirectUri,
      response_type: 'code',
      scope: 'mcp:read',
      state,
      resource: RESOURCE,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const callback = await within(
      loopback.redirect(url, new AbortController().signal),
      10_000,
      'the callback',
    );
    await loopback.close();
    expect(browserErrors).toEqual([]);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        loopback.redirectUri,
        verifier,
        insecure,
      ),
    );
    expect(tokens.access_token).toBeTruthy();
  } finally {
    await op.close();
  }
});
