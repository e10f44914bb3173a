/**
 * The client credentials grant (OAuth 2.1 §4.2; MCP extension
 * `io.modelcontextprotocol/oauth-client-credentials`): a service with no user present gets its
 * own token, authenticating with a secret or a `private_key_jwt` assertion. The token request
 * carries the RFC 8707 `resource` of the MCP server and the scope the server asked for.
 */
import {
  CLIENT_CREDENTIALS_EXTENSION_ID,
  withAuthExtensions,
  type MachineAuthProvider,
} from './extensions.js';
import { machineGrantProvider, type MachineGrantOptions } from './grant-provider.js';

/**
 * Options of {@link clientCredentialsAuth}.
 *
 * @example
 * const options: ClientCredentialsAuthOptions = {
 *   issuer: 'https://auth.example.com',
 *   credentials: { clientId: 'svc', clientSecret: secret },
 * };
 */
export type ClientCredentialsAuthOptions = MachineGrantOptions;

/**
 * An `HttpAuthProvider` that authorizes as the client itself with the client credentials grant.
 * Its `extensions` list the client credentials extension (and DPoP's with `dpop`).
 *
 * @example
 * const auth = clientCredentialsAuth({
 *   issuer: 'https://auth.example.com',
 *   credentials: { clientId: 'reporting-job', clientSecret: process.env.MCP_SECRET! },
 * });
 * await client.connect(new StreamableHttpClientTransport(url, { auth }));
 */
export function clientCredentialsAuth(options: ClientCredentialsAuthOptions): MachineAuthProvider {
  if (!options.credentials.clientId)
    throw new TypeError('clientCredentialsAuth: credentials.clientId is empty');
  const provider = machineGrantProvider('clientCredentialsAuth', options, async (target) => ({
    grantType: 'client_credentials',
    parameters: { resource: target.resource },
  }));
  return withAuthExtensions(provider, CLIENT_CREDENTIALS_EXTENSION_ID, options.dpop);
}
