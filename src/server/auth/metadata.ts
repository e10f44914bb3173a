/**
 * RFC 9728 protected resource metadata: the document, its two well-known URLs, and a
 * web-standard handler that serves it.
 */
import { checkResource, type ResourceServerOptions } from './options.js';
import { DEFAULT_DPOP_ALGORITHMS } from './dpop-proof.js';

/** The well-known path prefix of RFC 9728. */
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The protected resource metadata document (RFC 9728 §2) of a resource server.
 *
 * @example
 * protectedResourceMetadata({ resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'], verifier });
 * // { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://auth.example.com'], bearer_methods_supported: ['header'] }
 */
export function protectedResourceMetadata(options: ResourceServerOptions): Record<string, unknown> {
  const document: Record<string, unknown> = {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
  };
  if (options.scopesSupported !== undefined) document.scopes_supported = [...options.scopesSupported];
  document.bearer_methods_supported = ['header'];
  if (options.dpop) {
    // RFC 9728 §2 / RFC 9449 §7.2: the proof algorithms and whether only DPoP-bound tokens work.
    const dpop = options.dpop === true ? {} : options.dpop;
    document.dpop_signing_alg_values_supported = [...(dpop.algorithms ?? DEFAULT_DPOP_ALGORITHMS)];
    if (dpop.required) document.dpop_bound_access_tokens_required = true;
  }
  if (options.resourceName !== undefined) document.resource_name = options.resourceName;
  if (options.resourceDocumentation !== undefined) {
    document.resource_documentation = options.resourceDocumentation;
  }
  return document;
}

/**
 * Where the metadata of `resource` is served: the path-based URL (the well-known prefix between
 * host and path, RFC 9728 §3.1; the one challenges point to) and the root one. They are the same
 * URL when the resource has no path.
 *
 * @example
 * protectedResourceMetadataLocations('https://mcp.example.com/mcp');
 * // { pathBased: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp', root: 'https://mcp.example.com/.well-known/oauth-protected-resource' }
 */
export function protectedResourceMetadataLocations(resource: string): { pathBased: string; root: string } {
  const url = checkResource(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return { pathBased: `${url.origin}${WELL_KNOWN}${path}`, root: `${url.origin}${WELL_KNOWN}` };
}

/**
 * A metadata reply before it becomes a web `Response` or is written to a Node response.
 *
 * @example
 * const reply = serveMetadata('GET', '/.well-known/oauth-protected-resource/mcp'); // { status: 200, ... }
 */
export interface MetadataReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON document (GET only). */
  readonly body: string | undefined;
}

/**
 * Answers requests for the metadata document of one resource server: `(method, path)` in, the
 * reply out, or undefined when `path` is neither of its two paths.
 *
 * @example
 * const serve = metadataResponder(options);
 * const reply = serve(req.method, new URL(req.url, 'http://x').pathname);
 */
export type MetadataResponder = (method: string, path: string) => MetadataReply | undefined;

/** CORS: any origin may read the metadata (browser-based clients discover with it). */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'mcp-protocol-version',
} as const;

/**
 * The responder for `options`: GET and HEAD get the document (`HEAD` without a body), an
 * `OPTIONS` preflight gets 204, any other method 405.
 *
 * @example
 * const serve = metadataResponder(options);
 * serve('GET', '/.well-known/oauth-protected-resource/mcp')?.status; // 200
 * serve('POST', '/.well-known/oauth-protected-resource/mcp')?.status; // 405
 * serve('GET', '/mcp'); // undefined
 */
export function metadataResponder(options: ResourceServerOptions): MetadataResponder {
  const urls = protectedResourceMetadataLocations(options.resource);
  const paths = new Set([new URL(urls.pathBased).pathname, new URL(urls.root).pathname]);
  const body = JSON.stringify(protectedResourceMetadata(options));
  const ok = Object.freeze({
    status: 200,
    headers: Object.freeze({ 'content-type': 'application/json', 'cache-control': 'max-age=3600', ...CORS }),
    body,
  });
  const head = Object.freeze({ ...ok, body: undefined });
  const preflight = Object.freeze({ status: 204, headers: Object.freeze({ ...CORS }), body: undefined });
  const notAllowed = Object.freeze({
    status: 405,
    headers: Object.freeze({ allow: 'GET, HEAD, OPTIONS', ...CORS }),
    body: undefined,
  });
  return (method, path) => {
    if (!paths.has(path)) return undefined;
    if (method === 'GET') return ok;
    if (method === 'HEAD') return head;
    if (method === 'OPTIONS') return preflight;
    return notAllowed;
  };
}

/**
 * A web-standard handler of the metadata document, for `createHttpHandler` users (`serveHttp`
 * mounts it by itself when `auth` is set). Returns undefined for any other path.
 *
 * @example
 * const metadata = protectedResourceMetadataHandler(auth);
 * const mcp = createHttpHandler(server, { auth });
 * Deno.serve((request) => metadata(request) ?? mcp(request));
 */
export function protectedResourceMetadataHandler(
  options: ResourceServerOptions,
): (request: Request) => Response | undefined {
  const respond = metadataResponder(options);
  return (request) => {
    const reply = respond(request.method, new URL(request.url).pathname);
    return reply && new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
  };
}
