/**
 * A real OpenID provider (`oidc-provider`, OpenID Certified) on 127.0.0.1, configured the way an
 * MCP deployment's authorization server is: dynamic client registration open, PKCE S256 required,
 * RFC 8707 resource indicators whose access tokens are RFC 9068 JWTs (`typ: at+jwt`) for the MCP
 * resource URL, rotating refresh tokens, and the `client_credentials` grant for machine clients.
 *
 * Plain http on loopback: oidc-provider supports it as it is (its own quick start uses an
 * `http://localhost` issuer); nothing is switched off for it. Its cookies get the `Secure` flag
 * only when the request came over TLS (or through a proxy it was told to trust: `proxy` stays
 * off here), so a fetch-based user agent on http gets them back, and https is enforced only where
 * a client ID is itself a URL (client ID metadata documents), which the harness does not use.
 * This is safe here, and only here, because the listener is bound to 127.0.0.1 for one test run,
 * every key (token signing key, cookie key) is generated at start and never leaves the process,
 * the store is in memory, and the accounts are the development login (any username). Clients opt
 * in to http on their side (oauth4webapi: `allowInsecureRequests`), as a production client must not.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider, { errors } from 'oidc-provider';

export interface OidcProviderOptions {
  /**
   * The MCP resource URLs (RFC 8707 `resource`) tokens may be issued for; each is its tokens'
   * `aud`. More can be added once started ({@link OidcProvider.addResource}), for a server that
   * has to know the issuer before its own URL is known. Default none.
   */
  resources?: string | readonly string[];
  /** The scopes a resource grants. Default `mcp:read mcp:write`. */
  scopes?: string;
  /** Access token lifetime in seconds (1 to see one expire; see also `setAccessTokenTtl`). Default 300. */
  accessTokenTtl?: number;
  /** Access token format: RFC 9068 JWT (default) or opaque (for RFC 7662 introspection). */
  accessTokenFormat?: 'jwt' | 'opaque';
  /** Statically registered clients (oidc-provider client metadata), e.g. a confidential machine client. */
  clients?: readonly Record<string, unknown>[];
  /** Port on 127.0.0.1. Default 0 (a free one). */
  port?: number;
  /**
   * A path for the issuer (`/tenant` gives `http://127.0.0.1:<port>/tenant`), as multi-tenant
   * servers have: every endpoint moves under it, discovery to `/tenant/.well-known/openid-configuration`.
   * Default none.
   */
  issuerPath?: string;
  /**
   * Which metadata documents are served, at the URLs the specs give them (for an issuer path
   * `/t`: RFC 8414 at `/.well-known/oauth-authorization-server/t`; OpenID discovery at
   * `/t/.well-known/openid-configuration` and `/.well-known/openid-configuration/t`). `openid`
   * or `oauth` alone makes a client's discovery fall back. Default `both`.
   */
  discovery?: 'both' | 'openid' | 'oauth';
  /**
   * DPoP (RFC 9449, on in oidc-provider 9: a token request with a proof gets a bound token):
   * `nonce` makes its token endpoint require a server nonce (§8). Default: DPoP on, no nonce.
   */
  dpop?: { readonly nonce?: boolean };
}

export interface OidcProvider {
  /** `http://127.0.0.1:<port>`; discovery at `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly jwksUri: string;
  /** The oidc-provider instance, for what a test needs beyond the defaults. */
  readonly provider: Provider;
  /**
   * Internal errors of the provider (its `server_error` events: a 500 to the client). A test that
   * ends with a failed login should look here first; a passing one can check it is empty.
   */
  readonly serverErrors: readonly unknown[];
  /**
   * An RFC 9068 access token signed with the provider's own key, for what the provider will not
   * issue: one already expired (`expiresIn` < 0), one for an audience it does not know, odd claims.
   * Defaults: `iss` the issuer, `aud` the first resource, `sub` `alice`, `scope` all the scopes,
   * a fresh `jti`, `iat` now, `exp` `expiresIn` seconds from now (default 300).
   */
  mintAccessToken(claims?: JWTPayload, options?: { expiresIn?: number }): Promise<string>;
  /** Accept `resource` as a resource indicator (an audience) from now on. */
  addResource(resource: string): void;
  /** Lifetime of the access tokens issued from now on, in seconds: short to make one expire, then long again. */
  setAccessTokenTtl(seconds: number): void;
  /** Stop listening and drop every connection; resolves once the port is released. Idempotent. */
  close(): Promise<void>;
}

/** Scopes that are not a resource's: OpenID's own, and the one that asks for a refresh token. */
const PROVIDER_SCOPES = ['openid', 'offline_access'];

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<OidcProvider> {
  const resources = new Set(typeof options.resources === 'string' ? [options.resources] : options.resources);
  const { scopes = 'mcp:read mcp:write', accessTokenFormat = 'jwt', port = 0 } = options;
  const { issuerPath = '', discovery = 'both' } = options;
  if (issuerPath !== '' && !/^(\/[\w.-]+)+$/.test(issuerPath))
    throw new TypeError(`Invalid issuerPath: ${issuerPath}`);
  let accessTokenTtl = options.accessTokenTtl ?? 300;

  // The issuer URL holds the port, and the port is known once listening: listen first, then build.
  const target: { handle?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  const server = createServer((req, res) => {
    const routed = route(req.url ?? '/', issuerPath, discovery);
    if (!target.handle || routed === undefined) {
      res.writeHead(target.handle ? 404 : 503).end();
      return;
    }
    // Mounted under the issuer path the way oidc-provider expects: `originalUrl` keeps the prefix
    // it builds its URLs from, `url` is what its router matches.
    Object.assign(req, { originalUrl: `${issuerPath}${routed}`, url: routed });
    target.handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${issuerPath}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = {
    ...(await exportJWK(privateKey)),
    kid: `k-${randomBytes(4).toString('hex')}`,
    alg: 'RS256',
    use: 'sig',
  };

  const provider = new Provider(issuer, {
    clients: options.clients ?? [],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    scopes: PROVIDER_SCOPES,
    // PKCE for every client, confidential ones too (OAuth 2.1); oidc-provider only knows S256.
    pkce: { required: () => true },
    rotateRefreshToken: true,
    // OpenID Connect grants `offline_access` only with `prompt=consent`, which OAuth clients (MCP
    // ones included) do not send: a client registered for the refresh_token grant gets one anyway.
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: () => accessTokenTtl,
      ClientCredentials: () => accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 24 * 3600,
      Grant: 24 * 3600,
      Interaction: 3600,
      Session: 24 * 3600,
    },
    features: {
      // The development login (any username, any password): what oidc-login drives headlessly.
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      dPoP: {
        enabled: true,
        ...(options.dpop?.nonce && { nonceSecret: randomBytes(32), requireNonce: () => true }),
      },
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        // A refresh or code exchange without `resource` gets a token for the one granted resource.
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (!resources.has(resource)) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return {
            scope: scopes,
            audience: resource,
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat,
            ...(accessTokenFormat === 'jwt' ? { jwt: { sign: { alg: 'RS256' } } } : {}),
          };
        },
      },
    },
  });
  const serverErrors: unknown[] = [];
  provider.on('server_error', (_ctx, error) => void serverErrors.push(error));
  target.handle = provider.callback();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    provider,
    serverErrors,
    mintAccessToken: async (claims = {}, { expiresIn = 300 } = {}) => {
      const now = Math.floor(Date.now() / 1000);
      const [aud] = resources;
      return new SignJWT({
        iss: issuer,
        ...(aud !== undefined && { aud }),
        sub: 'alice',
        client_id: 'minted',
        scope: scopes,
        jti: randomBytes(16).toString('base64url'),
        iat: now,
        exp: now + expiresIn,
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: signingKey.kid })
        .sign(privateKey);
    },
    addResource: (resource) => void resources.add(resource),
    setAccessTokenTtl: (seconds) => {
      if (!Number.isInteger(seconds) || seconds < 1)
        throw new RangeError(`Invalid access token TTL: ${seconds}`);
      accessTokenTtl = seconds;
    },
    close,
  };
}

const OAUTH_METADATA = '/.well-known/oauth-authorization-server';
const OPENID_METADATA = '/.well-known/openid-configuration';

/**
 * The request target relative to the issuer path (what oidc-provider's router matches), or
 * undefined for a 404. The metadata documents are served where the specs put them, and only
 * those `discovery` names; oidc-provider itself would serve both under the issuer path.
 */
function route(
  target: string,
  issuerPath: string,
  discovery: 'both' | 'openid' | 'oauth',
): string | undefined {
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  const search = query < 0 ? '' : target.slice(query);
  const oauth = discovery !== 'openid';
  const openid = discovery !== 'oauth';
  if (path === `${OAUTH_METADATA}${issuerPath}`) return oauth ? `${OAUTH_METADATA}${search}` : undefined;
  if (path === `${OPENID_METADATA}${issuerPath}`) return openid ? `${OPENID_METADATA}${search}` : undefined;
  if (path === `${issuerPath}${OPENID_METADATA}`) return openid ? `${OPENID_METADATA}${search}` : undefined;
  if (path === `${issuerPath}${OAUTH_METADATA}`) return undefined;
  if (path !== issuerPath && !path.startsWith(`${issuerPath}/`)) return undefined;
  return target.slice(issuerPath.length) || '/';
}
