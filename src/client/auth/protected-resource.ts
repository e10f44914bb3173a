import { AuthorizationError } from './errors.js';
import { getMetadata, isRedirect, type HttpContext } from './http.js';
import { isJsonObject } from '../../core/jsonrpc.js';

/**
 * RFC 9728 protected resource metadata, as far as an MCP client reads it.
 *
 * @example
 * const prm: ProtectedResourceMetadata = { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://auth.example.com'] };
 */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly [name: string]: unknown;
}

/**
 * The protected resource metadata URLs to try for `serverUrl`, in the spec's order: the
 * `resource_metadata` of the challenge, then the path-based well-known URL (only when the server
 * has a path), then the root one.
 *
 * @example
 * protectedResourceMetadataUrls(new URL('https://example.com/public/mcp')).map(String);
 * // ['https://example.com/.well-known/oauth-protected-resource/public/mcp', 'https://example.com/.well-known/oauth-protected-resource']
 */
export function protectedResourceMetadataUrls(serverUrl: URL, fromChallenge?: string): URL[] {
  const urls: URL[] = [];
  if (fromChallenge) {
    try {
      urls.push(new URL(fromChallenge, serverUrl));
    } catch {
      // An unparsable hint is ignored: the well-known URLs still apply.
    }
  }
  const path = serverUrl.pathname.replace(/\/$/, '');
  if (path) urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl.origin));
  urls.push(new URL('/.well-known/oauth-protected-resource', serverUrl.origin));
  return urls.filter((url, i) => urls.findIndex((u) => u.href === url.href) === i);
}

/**
 * Whether protected resource metadata that names `resource` may be used for the MCP server at
 * `serverUrl`: same origin (scheme and host compared case-insensitively, as URL parsing does),
 * and the resource's path is the server's path or a parent of it (a root document names the
 * origin). Anything else could be another server's metadata, replayed to get its tokens.
 *
 * @example
 * resourceMatches(new URL('https://example.com/mcp'), 'https://example.com'); // true
 * resourceMatches(new URL('https://example.com/mcp'), 'https://evil.example.com/mcp'); // false
 */
export function resourceMatches(serverUrl: URL, resource: string): boolean {
  let published: URL;
  try {
    published = new URL(resource);
  } catch {
    return false;
  }
  if (published.hash || published.origin !== serverUrl.origin) return false;
  const want = published.pathname.replace(/\/$/, '');
  const have = serverUrl.pathname.replace(/\/$/, '');
  return have === want || have.startsWith(`${want}/`);
}

/**
 * Fetch protected resource metadata from the candidate URLs in order, until one answers 200 with a
 * valid document. Resolves undefined when every candidate answers non-200 (the 2025-03-26 servers
 * had no such document); rejects when a document is malformed or names another resource.
 *
 * @example
 * const found = await fetchProtectedResourceMetadata(serverUrl, protectedResourceMetadataUrls(serverUrl), {});
 */
export async function fetchProtectedResourceMetadata(
  serverUrl: URL,
  candidates: readonly URL[],
  ctx: HttpContext,
): Promise<
  | { metadata: ProtectedResourceMetadata; url: URL; redirected: readonly URL[] }
  | { metadata: undefined; redirected: readonly URL[] }
> {
  const redirected: URL[] = [];
  for (const url of candidates) {
    const response = await getMetadata(url, ctx);
    if (isRedirect(response)) redirected.push(url);
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      continue;
    }
    const metadata = await readProtectedResourceMetadata(url, response);
    if (!resourceMatches(serverUrl, metadata.resource)) {
      throw new AuthorizationError(
        'resource-mismatch',
        `protected resource metadata at ${url.href} names resource ${metadata.resource}, not the server ${serverUrl.href}`,
      );
    }
    return { metadata, url, redirected };
  }
  return { metadata: undefined, redirected };
}

async function readProtectedResourceMetadata(
  url: URL,
  response: Response,
): Promise<ProtectedResourceMetadata> {
  let json: unknown;
  try {
    json = await response.json();
  } catch (error) {
    throw new AuthorizationError('discovery', `protected resource metadata at ${url.href} is not JSON`, {
      cause: error,
    });
  }
  const bad = (what: string): AuthorizationError =>
    new AuthorizationError('discovery', `protected resource metadata at ${url.href}: ${what}`);
  if (!isJsonObject(json)) throw bad('not a JSON object');
  if (typeof json.resource !== 'string') throw bad('"resource" is missing');
  const servers = json.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string')) {
    throw bad('"authorization_servers" must list at least one issuer');
  }
  const scopes = json.scopes_supported;
  if (scopes !== undefined && (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string'))) {
    throw bad('"scopes_supported" must be an array of strings');
  }
  return json as ProtectedResourceMetadata;
}
