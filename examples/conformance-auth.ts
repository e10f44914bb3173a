/**
 * The authorization half of the conformance fixture client (`auth/*` scenarios of both client
 * lanes): an OAuthClientProvider per run, with a headless redirect (the suite's mock authorization
 * server approves at once and redirects), the suite's client ID metadata document URL, and the
 * pre-registered credentials some scenarios hand over in MCP_CONFORMANCE_CONTEXT.
 */
import { headlessRedirect, OAuthClientProvider, type ClientRegistration } from '../src/client/auth/index.js';
import type { HttpAuthProvider } from '../src/core/auth.js';

/** The client ID metadata document URL the suite expects (it never fetches it: auth/basic-cimd). */
export const CONFORMANCE_CIMD_URL = 'https://conformance-test.local/client-metadata.json';

/** Never listened on: the headless redirect reads the authorization server's `Location` instead. */
const REDIRECT_URI = 'http://localhost:3000/callback';

/** Machine-to-machine scenarios: another fixture (client credentials, SEP-990) handles them. */
const NOT_HERE = new Set([
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/cross-app-access-complete-flow',
]);

/**
 * The provider for an `auth/*` scenario (undefined for other scenarios and the machine grants).
 * `context` is the parsed MCP_CONFORMANCE_CONTEXT: `client_id` / `client_secret` there are
 * pre-registered credentials (auth/pre-registration), valid for whichever issuer the server names.
 */
export function conformanceAuth(
  scenario: string,
  context: Record<string, unknown>,
): HttpAuthProvider | undefined {
  if (!scenario.startsWith('auth/') || NOT_HERE.has(scenario)) return undefined;
  const preRegistered: ClientRegistration | undefined =
    typeof context.client_id === 'string'
      ? {
          client_id: context.client_id,
          ...(typeof context.client_secret === 'string' && { client_secret: context.client_secret }),
        }
      : undefined;
  return new OAuthClientProvider({
    clientMetadata: { client_name: 'keel-conformance-client', redirect_uris: [REDIRECT_URI] },
    clientMetadataUrl: CONFORMANCE_CIMD_URL,
    ...(preRegistered && { credentials: () => preRegistered }),
    redirect: headlessRedirect({ redirectUri: REDIRECT_URI }),
    // SEP-1932: the DPoP scenarios' authorization server binds tokens to the client's key.
    ...(scenario.startsWith('auth/dpop') && { dpop: true }),
  });
}
