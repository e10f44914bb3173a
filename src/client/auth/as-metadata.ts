import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import { getMetadata, isRedirect, type HttpContext } from './http.js';
import { secureUrl } from './urls.js';
import { isJsonObject } from '../../core/jsonrpc.js';
import { authorizationServerMetadataUrls as metadataUrls } from '../../core/oauth-metadata-urls.js';

/**
 * The authorization server metadata URLs for `issuer`, in the MCP spec's order (RFC 8414 §3.1
 * path insertion first, then OpenID Connect discovery by insertion and by appending), as URLs: the
 * one list of src/core/oauth-metadata-urls.ts, which the resource server uses too.
 *
 * @example
 * authorizationServerMetadataUrls('https://auth.example.com/tenant1').map(String);
 * // ['https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
 * //  'https://auth.example.com/.well-known/openid-configuration/tenant1',
 * //  'https://auth.example.com/tenant1/.well-known/openid-configuration']
 */
export function authorizationServerMetadataUrls(issuer: string): URL[] {
  return metadataUrls(issuer).map((url) => new URL(url));
}

/**
 * Fetch and validate the metadata of the authorization server `issuer` (exactly as the protected
 * resource metadata lists it). The document's `issuer` must be identical to `issuer` (RFC 8414
 * §3.3): a mismatch is an `issuer-mismatch` error at once, no further candidate is tried, because
 * a document that lies about its issuer must not be used at all. Rejects when no
 * candidate answers 200 (`discovery`).
 *
 * @example
 * const as = await discoverAuthorizationServer('https://auth.example.com', {});
 * console.log(as?.token_endpoint);
 */
export async function discoverAuthorizationServer(
  issuer: string,
  ctx: HttpContext,
): Promise<oauth.AuthorizationServer> {
  const found = await findAuthorizationServer(issuer, ctx);
  if (found.metadata) return found.metadata;
  throw new AuthorizationError(
    'discovery',
    `no authorization server metadata for ${issuer}; tried ${found.tried.join(', ')}`,
  );
}

/**
 * Like {@link discoverAuthorizationServer}, but resolves `metadata: undefined` (with the URLs
 * tried) when no candidate answers 200: the 2025-03-26 fallback goes on to default endpoints.
 * With `legacy` (metadata at a 2025-03-26 server's origin, where no issuer was announced), the
 * document's own `issuer` is the one recorded and checked, and it must have the origin the
 * document was fetched from (`issuer-mismatch` otherwise).
 *
 * @example
 * const { metadata } = await findAuthorizationServer('https://mcp.example.com', {});
 */
export async function findAuthorizationServer(
  issuer: string,
  ctx: HttpContext,
  legacy = false,
): Promise<{ metadata: oauth.AuthorizationServer | undefined; tried: readonly string[] }> {
  const issuerUrl = secureUrl(issuer, 'authorization server issuer');
  const tried: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const response = await getMetadata(url, ctx);
    if (response.status !== 200) {
      tried.push(`${url.href} (${isRedirect(response) ? 'redirect, not followed' : response.status})`);
      await response.body?.cancel().catch(() => undefined);
      continue;
    }
    let metadata: oauth.AuthorizationServer;
    // 2025-03-26 servers publish metadata at their own origin with whatever issuer their
    // authorization server has: no issuer was announced to compare with, so the document's own is
    // recorded (and the callback's `iss` is still checked against it).
    const expected = legacy ? await ownIssuer(response) : issuer;
    // ...but only one of that origin: a server must not name another origin's issuer (say the
    // one the client holds a pre-registered secret for) and have its own endpoints trusted with it.
    if (legacy && expected !== '' && new URL(expected).origin !== issuerUrl.origin) {
      await response.body?.cancel().catch(() => undefined);
      throw issuerMismatch(url, issuerUrl.origin, undefined, expected);
    }
    try {
      metadata = await oauth.processDiscoveryResponse(
        expected === issuer ? issuerUrl : new URL(expected),
        response,
      );
    } catch (error) {
      if (error instanceof oauth.OperationProcessingError && error.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
        throw issuerMismatch(url, issuer, error);
      }
      throw new AuthorizationError('discovery', `authorization server metadata at ${url.href} is invalid`, {
        cause: error,
      });
    }
    // The library compares normalized URLs; the spec wants the identical string.
    if (metadata.issuer !== expected) throw issuerMismatch(url, expected);
    return { metadata, tried };
  }
  return { metadata: undefined, tried };
}

/** The `issuer` a metadata document names (or '' when it names none: validation then fails). */
async function ownIssuer(response: Response): Promise<string> {
  const doc: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const value = isJsonObject(doc) ? doc.issuer : undefined;
  if (typeof value !== 'string') return '';
  try {
    new URL(value);
    return value;
  } catch {
    return '';
  }
}

function issuerMismatch(url: URL, issuer: string, cause?: unknown, named?: string): AuthorizationError {
  return new AuthorizationError(
    'issuer-mismatch',
    named === undefined
      ? `authorization server metadata at ${url.href} does not name the issuer ${issuer} it was fetched for`
      : `authorization server metadata at ${url.href} names the issuer ${JSON.stringify(named)}, which is not of the origin ${issuer} it was fetched from`,
    { cause },
  );
}
