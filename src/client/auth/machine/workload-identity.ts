/**
 * Workload identity federation (SEP-1933, MCP extension `io.modelcontextprotocol/auth/wif`): a
 * workload that already holds a JWT from its platform (a Kubernetes service account token, a
 * SPIFFE JWT-SVID, a cloud identity token) presents it to the MCP server's authorization server
 * with the RFC 7523 JWT bearer grant. No client secret, no registration: the authorization server
 * trusts the platform's issuer. The token is read again for every token request (platforms rotate
 * it), so a renewal after expiry or a 401 presents the current one.
 */
import {
  withAuthExtensions,
  WORKLOAD_IDENTITY_EXTENSION_ID,
  type MachineAuthProvider,
} from './extensions.js';
import { machineGrantProvider, type MachineGrantOptions } from './grant-provider.js';
import { readPlatformToken, type PlatformToken } from './platform-token.js';
import { AuthorizationError } from '../errors.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Options of {@link workloadIdentityAuth}.
 *
 * @example
 * const options: WorkloadIdentityAuthOptions = {
 *   issuer: 'https://auth.example.com',
 *   platformToken: { env: 'MCP_WORKLOAD_TOKEN' },
 * };
 */
export interface WorkloadIdentityAuthOptions extends Omit<MachineGrantOptions, 'credentials'> {
  /** The workload's JWT (see {@link PlatformToken}): its `aud` must be one the authorization server accepts. */
  readonly platformToken: PlatformToken;
  /**
   * A `client_id` to send along, for authorization servers that want one (the extension needs
   * none: the workload is identified by the token's `sub`). Default: none sent.
   */
  readonly clientId?: string;
}

/**
 * An `HttpAuthProvider` that authorizes as the workload, with its platform token as the RFC 7523
 * assertion. Its `extensions` list the WIF extension (and DPoP's with `dpop`).
 *
 * @example
 * const auth = workloadIdentityAuth({
 *   issuer: 'https://auth.example.com',
 *   // keel-mcp/node: the projected token file, re-read on each token request (it rotates)
 *   platformToken: platformTokenFile('/var/run/secrets/tokens/mcp-token'),
 * });
 * const client = declareAuthExtensions(new McpClient({ name: 'job', version: '1.0.0' }), auth);
 * await client.connect(new StreamableHttpClientTransport(url, { auth }));
 */
export function workloadIdentityAuth(options: WorkloadIdentityAuthOptions): MachineAuthProvider {
  const source: unknown = options.platformToken;
  if (!isPlatformToken(source)) {
    throw new TypeError(
      'workloadIdentityAuth: platformToken must be a string, { env } or a function (platformTokenFile(path) for a file)',
    );
  }
  if (options.clientId === '') throw new TypeError('workloadIdentityAuth: clientId is empty');
  const provider = machineGrantProvider('workloadIdentityAuth', options, async (target, _scope, signal) => {
    const as = target.authorizationServer;
    if (!as.token_endpoint)
      throw new AuthorizationError('discovery', `${as.issuer} publishes no token_endpoint`);
    const assertion = await readPlatformToken(source, {
      issuer: as.issuer,
      tokenEndpoint: as.token_endpoint,
      resource: target.resource,
      signal,
    });
    return { grantType: JWT_BEARER, parameters: { assertion, resource: target.resource } };
  });
  return withAuthExtensions(provider, WORKLOAD_IDENTITY_EXTENSION_ID, options.dpop);
}

function isPlatformToken(value: unknown): value is PlatformToken {
  if (typeof value === 'string' || typeof value === 'function') return value !== '';
  if (typeof value !== 'object' || value === null) return false;
  const { env } = value as { env?: unknown };
  return typeof env === 'string' && env !== '';
}
