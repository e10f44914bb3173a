/**
 * Discovery: from an MCP server URL (and the `WWW-Authenticate` of its refusal) to the
 * authorization server to use and the resource identifier to ask tokens for. The spec's order:
 * the challenge's `resource_metadata`, the path-based then the root protected resource metadata
 * (RFC 9728), then authorization server metadata (RFC 8414 / OpenID Connect discovery). A server
 * without protected resource metadata is a 2025-03-26 server: its origin is the issuer, and when it
 * publishes no metadata either, the default endpoints `/authorize`, `/token`, `/register` apply.
 */
import type * as oauth from 'oauth4webapi';
import { discoverAuthorizationServer, findAuthorizationServer } from './as-metadata.js';
import { AuthorizationError } from './errors.js';
import { abortedOr, type FetchLike } from './http.js';
import {
  fetchProtectedResourceMetadata,
  protectedResourceMetadataUrls,
  type ProtectedResourceMetadata,
} from './protected-resource.js';
import { secureUrl } from './urls.js';
import { parseBearerChallenge } from './www-authenticate.js';

/**
 * Options of {@link discoverAuthorization}.
 *
 * @example
 * await discoverAuthorization(serverUrl, { wwwAuthenticate: challenge.wwwAuthenticate, signal });
 */
export interface DiscoveryOptions {
  /** The `WWW-Authenticate` header of the server's 401/403, if any: its `resource_metadata` is tried first. */
  readonly wwwAuthenticate?: string;
  /** Replaces the global fetch for every metadata request. */
  readonly fetch?: FetchLike;
  readonly signal?: AbortSignal;
  /** Picks one of the protected resource metadata's `authorization_servers` (default: the first). */
  readonly selectAuthorizationServer?: (issuers: readonly string[]) => string;
}

/**
 * Where the authorization for an MCP server comes from.
 *
 * @example
 * const { resource, authorizationServer, issuer } = await discoverAuthorization(new URL('https://mcp.example.com/mcp'));
 */
export interface DiscoveredAuthorization {
  /** The MCP server URL discovery started from. */
  readonly serverUrl: URL;
  /**
   * The RFC 8707 `resource` to send on authorization and token requests: exactly as the protected
   * resource metadata publishes it (no trailing-slash normalization); for a 2025-03-26 server
   * (no such metadata), the server URL without fragment.
   */
  readonly resource: string;
  /** The protected resource metadata, undefined for a 2025-03-26 server. */
  readonly resourceMetadata: ProtectedResourceMetadata | undefined;
  /** Where the protected resource metadata was found. */
  readonly resourceMetadataUrl: URL | undefined;
  /** The validated authorization server metadata (oauth4webapi's shape). */
  readonly authorizationServer: oauth.AuthorizationServer;
  /** The issuer identifier, exactly as published (the key for registrations and tokens). */
  readonly issuer: string;
  /**
   * How the authorization server was found: `metadata` (RFC 9728 + RFC 8414), `legacy-metadata`
   * (2025-03-26: metadata at the server's origin), `legacy-defaults` (2025-03-26: no metadata at
   * all, default endpoints).
   */
  readonly source: 'metadata' | 'legacy-metadata' | 'legacy-defaults';
}

/**
 * Discover how to get a token for the MCP server at `serverUrl`. Rejects with an
 * {@link AuthorizationError}: `resource-mismatch` when the protected resource metadata names
 * another server, `issuer-mismatch` when authorization server metadata names another issuer,
 * `insecure-url` for plain http off loopback, `redirect` when metadata was only reachable through
 * a redirect (never followed), `discovery` otherwise.
 *
 * @example
 * const found = await discoverAuthorization(new URL('https://mcp.example.com/mcp'), {
 *   wwwAuthenticate: 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
 * });
 * console.log(found.issuer, found.authorizationServer.token_endpoint);
 */
export async function discoverAuthorization(
  serverUrl: URL | string,
  options: DiscoveryOptions = {},
): Promise<DiscoveredAuthorization> {
  const server = secureUrl(serverUrl, 'MCP server URL');
  server.hash = '';
  const ctx = {
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.signal && { signal: options.signal }),
  };
  try {
    const hint = parseBearerChallenge(options.wwwAuthenticate)?.resourceMetadata;
    const candidates = protectedResourceMetadataUrls(server, hint);
    const prm = await fetchProtectedResourceMetadata(server, candidates, ctx);
    if (prm.metadata) {
      const servers = prm.metadata.authorization_servers;
      const issuer = options.selectAuthorizationServer?.(servers) ?? servers[0];
      if (issuer === undefined || !servers.includes(issuer)) {
        throw new AuthorizationError('discovery', `no usable authorization server in ${prm.url.href}`);
      }
      const authorizationServer = await discoverAuthorizationServer(issuer, ctx);
      return {
        serverUrl: server,
        resource: prm.metadata.resource,
        resourceMetadata: prm.metadata,
        resourceMetadataUrl: prm.url,
        authorizationServer,
        issuer,
        source: 'metadata',
      };
    }
    if (prm.redirected.length > 0) {
      throw new AuthorizationError(
        'redirect',
        `protected resource metadata at ${prm.redirected.map((u) => u.href).join(', ')} answered with a redirect, which is not followed`,
      );
    }
    return await legacyDiscovery(server, ctx);
  } catch (error) {
    throw abortedOr(
      error,
      options.signal,
      () => new AuthorizationError('discovery', `discovery for ${server.href} failed`, { cause: error }),
    );
  }
}

/** 2025-03-26: the authorization base URL is the server URL without its path. */
async function legacyDiscovery(
  server: URL,
  ctx: { fetch?: FetchLike; signal?: AbortSignal },
): Promise<DiscoveredAuthorization> {
  const issuer = server.origin;
  const resource = server.href;
  const { metadata: found } = await findAuthorizationServer(issuer, ctx, true);
  if (found) {
    return {
      serverUrl: server,
      resource,
      resourceMetadata: undefined,
      resourceMetadataUrl: undefined,
      authorizationServer: found,
      issuer: found.issuer,
      source: 'legacy-metadata',
    };
  }
  const authorizationServer: oauth.AuthorizationServer = {
    issuer,
    authorization_endpoint: new URL('/authorize', issuer).href,
    token_endpoint: new URL('/token', issuer).href,
    registration_endpoint: new URL('/register', issuer).href,
    // 2025-03-26 made PKCE mandatory for every authorization server, so S256 is implied here.
    code_challenge_methods_supported: ['S256'],
    response_types_supported: ['code'],
  };
  return {
    serverUrl: server,
    resource,
    resourceMetadata: undefined,
    resourceMetadataUrl: undefined,
    authorizationServer,
    issuer,
    source: 'legacy-defaults',
  };
}
