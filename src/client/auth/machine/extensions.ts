/**
 * The authorization extensions a machine provider uses, as the client declares them under
 * `capabilities.extensions` (SEP-2133). The provider carries the list (`provider.extensions`, the
 * pattern of `OAuthClientProvider` and DPoP); the client declares each with `client.extend(e)`,
 * or all at once with {@link declareAuthExtensions}. Nothing is declared behind the user's back:
 * the transport knows nothing of capabilities, and the core stays unchanged.
 */
import type { HttpAuthProvider } from '../../../core/auth.js';
import type { Extension } from '../../../core/extensions.js';
import { dpopExtension } from '../dpop.js';

/**
 * Extension identifier of the OAuth client credentials grant (SEP-1046).
 *
 * @example
 * client.serverExtension(CLIENT_CREDENTIALS_EXTENSION_ID);
 */
export const CLIENT_CREDENTIALS_EXTENSION_ID = 'io.modelcontextprotocol/oauth-client-credentials';

/**
 * Extension identifier of enterprise-managed authorization (SEP-990, ID-JAG).
 *
 * @example
 * client.serverExtension(ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID);
 */
export const ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID =
  'io.modelcontextprotocol/enterprise-managed-authorization';

/**
 * Extension identifier of workload identity federation (SEP-1933), as the conformance suite names it.
 *
 * @example
 * client.serverExtension(WORKLOAD_IDENTITY_EXTENSION_ID);
 */
export const WORKLOAD_IDENTITY_EXTENSION_ID = 'io.modelcontextprotocol/auth/wif';

/**
 * An `HttpAuthProvider` that also lists the extensions a client using it declares.
 *
 * @example
 * const auth: MachineAuthProvider = clientCredentialsAuth({ issuer, credentials });
 * for (const extension of auth.extensions) client.extend(extension);
 */
export interface MachineAuthProvider extends HttpAuthProvider {
  /** The grant's extension, and DPoP's when the `dpop` option is on. Settings are empty. */
  readonly extensions: readonly Extension<unknown>[];
}

/**
 * `provider` with its `extensions` list: the grant's `id`, then DPoP's when `dpop` is on.
 *
 * @example
 * return withAuthExtensions(provider, CLIENT_CREDENTIALS_EXTENSION_ID, options.dpop);
 */
export function withAuthExtensions(
  provider: HttpAuthProvider,
  id: string,
  dpop: unknown,
): MachineAuthProvider {
  const extensions: Extension<unknown>[] = [{ id, settings: {} }];
  if (dpop) extensions.push(dpopExtension());
  return Object.assign(provider, { extensions: Object.freeze(extensions) });
}

/**
 * Declares in `client` every extension `auth` lists (a machine provider, or an
 * `OAuthClientProvider`), before `connect`; returns `client`. An auth provider with no list
 * declares nothing.
 *
 * @example
 * const auth = workloadIdentityAuth({ issuer, platformToken: { env: 'MCP_WORKLOAD_TOKEN' } });
 * const client = declareAuthExtensions(new McpClient({ name: 'job', version: '1.0.0' }), auth);
 * await client.connect(new StreamableHttpClientTransport(url, { auth }));
 */
export function declareAuthExtensions<C extends { extend(extension: Extension<never>): unknown }>(
  client: C,
  auth: HttpAuthProvider | { readonly extensions?: readonly Extension<unknown>[] },
): C {
  const extensions = 'extensions' in auth ? auth.extensions : undefined;
  for (const extension of extensions ?? []) client.extend(extension);
  return client;
}
