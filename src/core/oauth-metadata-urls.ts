/**
 * Where an authorization server's metadata may live, in the order the MCP authorization spec
 * tells clients to try them (and the resource server's JWKS discovery uses the same list).
 */

/**
 * The metadata URLs of `issuer`, in order. With a path (`https://auth.example.com/tenant1`):
 * RFC 8414 path insertion, OpenID Connect path insertion, OpenID Connect path appending. Without
 * one: RFC 8414, then OpenID Connect (the two OpenID forms are then the same URL, listed once).
 * A trailing slash of the issuer's path is dropped. Throws a TypeError for an invalid URL.
 *
 * @example
 * authorizationServerMetadataUrls('https://auth.example.com/tenant1');
 * // ['https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
 * //  'https://auth.example.com/.well-known/openid-configuration/tenant1',
 * //  'https://auth.example.com/tenant1/.well-known/openid-configuration']
 */
export function authorizationServerMetadataUrls(issuer: string | URL): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  if (path === '') {
    return [
      `${url.origin}/.well-known/oauth-authorization-server`,
      `${url.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}
