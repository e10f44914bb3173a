/**
 * The client credentials grant (OAuth 2.1 §4.2; MCP extension
 * `io.modelcontextprotocol/oauth-client-credentials`): a service with no user present gets its
 * own token, authenticating with a secret or a `private_key_jwt` assertion. The token request
 * carries the RFC 8707 `resource` of the MCP server and the scope the server asked for.
 */
import type { HttpAuthProvider } from '../../../core/auth.js';
import { clientAuthentication, type MachineClientCredentials } from './client-authentication.js';
import { defaultDiscovery } from './default-discovery.js';
import {
  assertIssuerBinding,
  machineProvider,
  type DiscoverResource,
  type IssuerBinding,
} from './machine-provider.js';
import { requestToken, type MachineHttpOptions } from './token-endpoint.js';

/**
 * Options of {@link clientCredentialsAuth}.
 *
 * @example
 * const options: ClientCredentialsAuthOptions = {
 *   issuer: 'https://auth.example.com',
 *   credentials: { clientId: 'svc', clientSecret: secret },
 * };
 */
export interface ClientCredentialsAuthOptions extends MachineHttpOptions {
  readonly credentials: MachineClientCredentials;
  /**
   * The authorization server `credentials` belong to (its issuer identifier, or a predicate). When
   * discovery finds another one, the provider fails with `issuer-mismatch` before any token request:
   * a server must not be able to collect the client's secret or assertion for another issuer.
   */
  readonly issuer: IssuerBinding;
  /**
   * Finds the authorization server from the server's first refusal. Default: protected resource
   * metadata (RFC 9728), then authorization server metadata (RFC 8414 / OpenID discovery).
   */
  readonly discover?: DiscoverResource;
}

/**
 * An `HttpAuthProvider` that authorizes as the client itself with the client credentials grant.
 *
 * @example
 * const auth = clientCredentialsAuth({
 *   issuer: 'https://auth.example.com',
 *   credentials: { clientId: 'reporting-job', clientSecret: process.env.MCP_SECRET! },
 * });
 * await client.connect(new StreamableHttpClientTransport(url, { auth }));
 */
export function clientCredentialsAuth(options: ClientCredentialsAuthOptions): HttpAuthProvider {
  const { credentials } = options;
  if (!credentials.clientId) throw new TypeError('clientCredentialsAuth: credentials.clientId is empty');
  const keyCache = new Map<string, Promise<CryptoKey>>();
  const discover = options.discover ?? defaultDiscovery(options);
  assertIssuerBinding('clientCredentialsAuth', options.issuer);
  const binding = {
    issuer: options.issuer,
    ...(options.flowTimeoutMs !== undefined && { flowTimeoutMs: options.flowTimeoutMs }),
  };
  return machineProvider(
    discover,
    async (target, scope, signal) => {
      const as = target.authorizationServer;
      const parameters: Record<string, string> = { resource: target.resource };
      if (scope) parameters.scope = scope;
      return requestToken(
        {
          as,
          client: { client_id: credentials.clientId },
          clientAuth: await clientAuthentication(credentials, as, keyCache),
          grantType: 'client_credentials',
          parameters,
        },
        options,
        signal,
      );
    },
    binding,
  );
}
