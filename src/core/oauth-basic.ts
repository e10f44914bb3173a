/**
 * HTTP Basic client authentication as OAuth defines it (RFC 6749 §2.3.1), shared by the OAuth
 * client and the resource server's introspection call so both encode credentials the same way.
 */

/**
 * The `Authorization` header value for `client_secret_basic`: the client id and secret are each
 * encoded with the `application/x-www-form-urlencoded` algorithm (WHATWG URL: space becomes `+`,
 * `*-._` stay, everything else is percent-encoded) before `id:secret` is Base64-encoded. Plain
 * Basic would send a `:` in the id unescaped and break the split at the server.
 *
 * @example
 * oauthBasicAuthorization('my app', 's:cret'); // 'Basic ' + btoa('my+app:s%3Acret')
 */
export function oauthBasicAuthorization(clientId: string, clientSecret: string): string {
  const form = (value: string): string => new URLSearchParams({ '': value }).toString().slice(1);
  // The form encoding leaves only ASCII, so btoa cannot throw on it.
  return `Basic ${btoa(`${form(clientId)}:${form(clientSecret)}`)}`;
}
