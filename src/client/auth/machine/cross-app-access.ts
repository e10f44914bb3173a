/**
 * Enterprise-managed authorization (SEP-990, MCP extension
 * `io.modelcontextprotocol/enterprise-managed-authorization`), also called cross-app access: the
 * user signed in to the client through the enterprise IdP; the client trades that ID token at the
 * IdP for an ID-JAG (RFC 8693 token exchange; the IdP applies the organization's policy), then
 * trades the ID-JAG at the MCP server's authorization server for an access token (RFC 7523 JWT
 * bearer grant). No browser, no consent screen at the MCP authorization server.
 */
import * as oauth from 'oauth4webapi';
import { clientSecretBasic } from '../client-auth.js';
import { AuthorizationError } from '../errors.js';
import {
  ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID,
  withAuthExtensions,
  type MachineAuthProvider,
} from './extensions.js';
import { identityProviderMetadata, type IdentityProvider } from './identity-provider.js';
import { machineGrantProvider, type MachineGrantOptions } from './grant-provider.js';
import type { ProtectedResource } from './protected-resource.js';
import { requestToken } from './token-endpoint.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

/**
 * Options of {@link crossAppAccessAuth}.
 *
 * @example
 * const options: CrossAppAccessAuthOptions = {
 *   issuer: 'https://auth.example.com',
 *   credentials: { clientId: 'mcp-client', clientSecret: secret },
 *   identityProvider: { issuer: 'https://idp.example.com', clientId: 'mcp-client-at-idp' },
 *   idToken: () => session.idToken(),
 * };
 */
export interface CrossAppAccessAuthOptions extends MachineGrantOptions {
  /** The enterprise IdP that issues ID-JAGs. */
  readonly identityProvider: IdentityProvider;
  /** The user's ID token from the IdP sign-in, or a function that returns a current one. */
  readonly idToken: string | ((signal: AbortSignal) => Promise<string>);
}

/**
 * An `HttpAuthProvider` that authorizes as the signed-in enterprise user, through the IdP. Its
 * `extensions` list the enterprise-managed authorization extension (and DPoP's with `dpop`).
 *
 * @example
 * const auth = crossAppAccessAuth({
 *   issuer: 'https://auth.example.com',
 *   credentials: { clientId: 'mcp-client', clientSecret: process.env.MCP_SECRET! },
 *   identityProvider: { issuer: 'https://idp.example.com', clientId: 'mcp-client-at-idp' },
 *   idToken: session.idToken,
 * });
 * await client.connect(new StreamableHttpClientTransport(url, { auth }));
 */
export function crossAppAccessAuth(options: CrossAppAccessAuthOptions): MachineAuthProvider {
  if (!options.credentials.clientId) throw new TypeError('crossAppAccessAuth: credentials.clientId is empty');
  if (!options.identityProvider.clientId) {
    throw new TypeError('crossAppAccessAuth: identityProvider.clientId is empty');
  }
  const provider = machineGrantProvider('crossAppAccessAuth', options, async (target, scope, signal) => ({
    grantType: JWT_BEARER,
    parameters: { assertion: await requestIdJag(options, target, scope, signal) },
  }));
  return withAuthExtensions(provider, ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID, options.dpop);
}

/** RFC 8693 at the IdP: the user's ID token in, an ID-JAG for this MCP server out. */
async function requestIdJag(
  options: CrossAppAccessAuthOptions,
  target: ProtectedResource,
  scope: string | undefined,
  signal: AbortSignal,
): Promise<string> {
  const idp = options.identityProvider;
  const idToken = typeof options.idToken === 'string' ? options.idToken : await options.idToken(signal);
  if (!idToken) throw new AuthorizationError('token', `no ID token to exchange at the IdP ${idp.issuer}`);
  const as = await identityProviderMetadata(idp, options, signal);
  const parameters: Record<string, string> = {
    subject_token: idToken,
    subject_token_type: ID_TOKEN_TYPE,
    requested_token_type: ID_JAG_TYPE,
    audience: target.authorizationServer.issuer,
    resource: target.resource,
  };
  if (scope) parameters.scope = scope;
  const issued = await requestToken(
    {
      as,
      client: { client_id: idp.clientId },
      clientAuth: idp.clientSecret ? clientSecretBasic(idp.clientSecret) : oauth.None(),
      grantType: TOKEN_EXCHANGE,
      parameters,
      // RFC 8693 §2.2.1: an ID-JAG is not an access token, so its token_type is `N_A`.
      acceptTokenTypes: ['N_A'],
    },
    options,
    signal,
  );
  const issuedType = issued.response.issued_token_type;
  if (issuedType !== ID_JAG_TYPE) {
    throw new AuthorizationError(
      'token',
      `the IdP ${idp.issuer} issued a ${typeof issuedType === 'string' ? issuedType : 'token of no stated type'}, not an ID-JAG`,
    );
  }
  return issued.accessToken;
}
