/**
 * How an MCP endpoint is protected as an OAuth 2.1 resource server (RFC 9728, RFC 6750).
 */
import type { TokenVerifier } from './token-verifier.js';
import type { DPoPResourceOptions } from './dpop-proof.js';

/**
 * Protect an HTTP endpoint: every MCP request needs a bearer token that `verifier` accepts.
 * Pass it as `auth` to `createHttpHandler` or `serveHttp`.
 *
 * @example
 * await serveHttp(server, {
 *   auth: {
 *     resource: 'https://mcp.example.com/mcp',
 *     authorizationServers: ['https://auth.example.com'],
 *     verifier: new JwtVerifier({ issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp' }),
 *     scopesSupported: ['mcp:tools'],
 *   },
 * });
 */
export interface ResourceServerOptions {
  /**
   * The canonical URL of this MCP endpoint (RFC 8707), e.g. `https://mcp.example.com/mcp`:
   * what clients ask tokens for and what a verifier checks the audience against. Its path gives
   * the metadata URL (`/.well-known/oauth-protected-resource/mcp`). No query, no fragment.
   */
  resource: string;
  /** Issuer URLs of the authorization servers that issue tokens for this resource (at least one). */
  authorizationServers: readonly string[];
  /** Checks each bearer token. */
  verifier: TokenVerifier;
  /**
   * Scopes this resource understands (`scopes_supported` in the metadata). Also the `scope` of a
   * 401 challenge when {@link requiredScopes} is not set. Keep it to what basic use needs; tools
   * that need more ask for it with 403 `insufficient_scope` (step-up).
   */
  scopesSupported?: readonly string[];
  /** Scopes every request needs (listing included); a token without them gets 403 `insufficient_scope`. */
  requiredScopes?: readonly string[];
  /** Human-readable name of this resource (`resource_name`). */
  resourceName?: string;
  /** URL of documentation for developers (`resource_documentation`). */
  resourceDocumentation?: string;
  /**
   * Accept DPoP-bound tokens (RFC 9449; MCP extension SEP-1932): a token whose `cnf.jkt` binds it
   * to a key must come as `Authorization: DPoP` with a valid proof of that key (`DPoP` header:
   * method, this `resource` URL, recent `iat`, unused `jti`, `ath` of the token). `true` is `{}`.
   * Without it a `DPoP` Authorization is refused like any other scheme.
   */
  dpop?: boolean | DPoPResourceOptions;
}

/** `scope-token` of RFC 6749 §3.3: visible ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * Throw a `TypeError` unless every entry is a valid OAuth scope token (so a challenge built
 * from them needs no escaping, and a typo with a space fails at start, not at the first client).
 *
 * @example
 * checkScopes(['files:read', 'files:write'], 'tool "upload" scopes');
 */
export function checkScopes(scopes: unknown, what: string): readonly string[] {
  if (!Array.isArray(scopes)) throw new TypeError(`${what} must be an array of scope strings`);
  for (const scope of scopes as unknown[]) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
      throw new TypeError(`${what}: ${JSON.stringify(scope)} is not a valid OAuth scope`);
    }
  }
  return Object.freeze([...(scopes as string[])]);
}

/**
 * The canonical resource URL, checked: absolute http(s), no query or fragment. Throws a TypeError.
 *
 * @example
 * checkResource('https://mcp.example.com/mcp').pathname; // '/mcp'
 */
export function checkResource(resource: unknown): URL {
  let url: URL;
  try {
    url = new URL(String(resource));
  } catch {
    throw new TypeError(`auth.resource must be an absolute URL, got ${JSON.stringify(resource)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError('auth.resource must be an http(s) URL');
  }
  if (url.search !== '' || url.hash !== '' || String(resource).includes('#')) {
    throw new TypeError('auth.resource must have no query and no fragment');
  }
  return url;
}
