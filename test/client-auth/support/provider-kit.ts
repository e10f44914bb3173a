/** Shared set-up for tests that drive an OAuthClientProvider directly against the mock. */
import { afterEach } from 'vitest';
import { headlessRedirect, OAuthClientProvider, type OAuthClientProviderOptions } from 'keel-mcp/client';
import { startMockOAuth, type MockOAuth, type MockOAuthConfig } from './mock-oauth.js';

export const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

const open: MockOAuth[] = [];

/** Close every mock after each test. Call after useProcessGuard(), so mocks close before its check. */
export function closeMocksAfterEach(): void {
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
  });
}

/** A mock whose MCP server URL is `<its origin>/mcp` (PRM and AS on the same stub). */
export async function mock(
  overrides: Partial<MockOAuthConfig> = {},
): Promise<MockOAuth & { serverUrl: URL }> {
  let origin = '';
  const m = await startMockOAuth(() => `${origin}/mcp`, overrides);
  origin = m.issuer;
  open.push(m);
  return Object.assign(m, { serverUrl: new URL(`${origin}/mcp`) });
}

export function provider(options: Partial<OAuthClientProviderOptions> = {}): OAuthClientProvider {
  return new OAuthClientProvider({
    clientMetadata: { client_name: 'keel-test', redirect_uris: [REDIRECT_URI] },
    redirect: headlessRedirect({ redirectUri: REDIRECT_URI }),
    ...options,
  });
}

/**
 * What the transport does for one send of a request that the server refuses: ask for the header
 * (as before every send), then report the 401/403.
 */
export async function refuse(
  p: OAuthClientProvider,
  m: MockOAuth & { serverUrl: URL },
  signal: AbortSignal = new AbortController().signal,
  status: 401 | 403 = 401,
  extra = '',
): Promise<boolean> {
  await p.authorization(m.serverUrl, signal);
  return p.challenge(
    { url: m.serverUrl, status, wwwAuthenticate: `Bearer resource_metadata="${m.prmUrl}"${extra}` },
    signal,
  );
}

export async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}
