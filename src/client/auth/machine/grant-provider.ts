/**
 * What every machine grant shares: discovery, the issuer binding checked before any token
 * request, the client's own authentication at the token endpoint, and the bounded shared step of
 * {@link machineProvider}. A grant only says what its token request carries.
 */
import * as oauth from 'oauth4webapi';
import type { HttpAuthProvider } from '../../../core/auth.js';
import { clientAuthentication, type MachineClientCredentials } from './client-authentication.js';
import { defaultDiscovery } from './default-discovery.js';
import {
  assertIssuerBinding,
  machineProvider,
  type DiscoverResource,
  type IssuerBinding,
} from './machine-provider.js';
import type { ProtectedResource } from './protected-resource.js';
import { requestToken, type MachineHttpOptions } from './token-endpoint.js';
import { DPoPSigner, type DPoPOptions } from '../dpop.js';
import { MemoryTokenStore } from '../store.js';

/**
 * The options every machine grant takes.
 *
 * @example
 * const options: MachineGrantOptions = {
 *   issuer: 'https://auth.example.com',
 *   credentials: { clientId: 'svc', clientSecret: secret },
 * };
 */
export interface MachineGrantOptions extends MachineHttpOptions {
  /** The client's credentials at the MCP server's authorization server. */
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
  /**
   * Sender-constrained tokens (DPoP, RFC 9449; SEP-1932): the token request carries a proof of a
   * key made for this provider (kept in memory, as its tokens are), and a DPoP-bound token goes
   * out as `Authorization: DPoP` with a fresh proof per request; server nonces are handled.
   */
  readonly dpop?: boolean | DPoPOptions;
}

/**
 * What one grant puts in its token request (the scope is added for it).
 *
 * @example
 * const request: GrantRequest = { grantType: 'client_credentials', parameters: { resource } };
 */
export interface GrantRequest {
  readonly grantType: string;
  readonly parameters: Record<string, string>;
}

/**
 * The options of {@link machineGrantProvider}: a grant whose client does not authenticate
 * (workload identity federation: the assertion is the credential) has no `credentials`, and at
 * most a `clientId` sent as `client_id` (RFC 6749 §2.3: a public client).
 *
 * @example
 * const options: GrantProviderOptions = { issuer: 'https://auth.example.com', clientId: 'workload' };
 */
export type GrantProviderOptions = Omit<MachineGrantOptions, 'credentials'> & {
  readonly credentials?: MachineClientCredentials;
  readonly clientId?: string;
};

/**
 * An `HttpAuthProvider` for one machine grant. `name` is the factory's, for option errors.
 *
 * @example
 * return machineGrantProvider('clientCredentialsAuth', options, async (target) => ({
 *   grantType: 'client_credentials',
 *   parameters: { resource: target.resource },
 * }));
 */
export function machineGrantProvider(
  name: string,
  options: GrantProviderOptions,
  grant: (target: ProtectedResource, scope: string | undefined, signal: AbortSignal) => Promise<GrantRequest>,
): HttpAuthProvider {
  const { credentials } = options;
  assertIssuerBinding(name, options.issuer);
  const keyCache = new Map<string, Promise<CryptoKey>>();
  const discover = options.discover ?? defaultDiscovery(options);
  const dpop = options.dpop
    ? new DPoPSigner(
        { persist: false, ...(options.dpop === true ? {} : options.dpop) },
        new MemoryTokenStore(),
      )
    : undefined;
  return machineProvider(
    discover,
    async (target, scope, signal) => {
      const { grantType, parameters } = await grant(target, scope, signal);
      const as = target.authorizationServer;
      return requestToken(
        {
          as,
          ...(credentials
            ? {
                client: { client_id: credentials.clientId },
                clientAuth: await clientAuthentication(credentials, as, keyCache),
              }
            : unauthenticated(options.clientId)),
          grantType,
          parameters: scope ? { ...parameters, scope } : parameters,
          dpop: await dpop?.tokenHandle(),
        },
        options,
        signal,
      );
    },
    {
      issuer: options.issuer,
      ...(options.flowTimeoutMs !== undefined && { flowTimeoutMs: options.flowTimeoutMs }),
      ...(dpop && { dpop }),
    },
  );
}

/** No client authentication: `client_id` in the body when there is one (oauth4webapi's `None`), else nothing. */
function unauthenticated(clientId: string | undefined): {
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
} {
  return clientId
    ? { client: { client_id: clientId }, clientAuth: oauth.None() }
    : // oauth4webapi insists on a client_id; this one is never sent (the authentication adds nothing).
      { client: { client_id: 'unregistered-workload' }, clientAuth: () => {} };
}
