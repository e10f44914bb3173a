/**
 * Finding an issuer's JWKS URL from its metadata, at the URLs the MCP spec has clients try
 * (RFC 8414 and OpenID Connect discovery, see `authorizationServerMetadataUrls`).
 */
import { authorizationServerMetadataUrls } from '../../core/oauth-metadata-urls.js';
import { boundedFetch } from './bounded-fetch.js';
import { TokenVerifierUnavailableError } from './errors.js';

/**
 * The `jwks_uri` of `issuer`, from the first metadata document found whose `issuer` is exactly
 * `issuer` (a document naming another issuer is refused). Rejects with
 * `TokenVerifierUnavailableError` when none can be read.
 *
 * @example
 * const jwks = await discoverJwksUri('https://auth.example.com', 5_000);
 */
export async function discoverJwksUri(issuer: string, timeoutMs: number): Promise<string> {
  for (const url of authorizationServerMetadataUrls(issuer)) {
    let document: unknown;
    try {
      const response = await boundedFetch(
        new URL(url),
        { headers: { accept: 'application/json' } },
        timeoutMs,
      );
      if (response.status !== 200) continue;
      document = await response.json();
    } catch {
      continue;
    }
    const record =
      typeof document === 'object' && document !== null ? (document as Record<string, unknown>) : {};
    if (record.issuer !== issuer) {
      throw new TokenVerifierUnavailableError(`The metadata at ${url} names another issuer`);
    }
    if (typeof record.jwks_uri !== 'string') {
      throw new TokenVerifierUnavailableError(`The metadata at ${url} has no jwks_uri`);
    }
    return record.jwks_uri;
  }
  throw new TokenVerifierUnavailableError(`No authorization server metadata found for ${issuer}`);
}
