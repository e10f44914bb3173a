/**
 * The header formats of RFC 6750 and RFC 9449 §7.1: reading `Authorization: Bearer <token>` (or
 * `DPoP <token>`) and writing `WWW-Authenticate: Bearer k="v", ...` (or `DPoP ...`) challenges.
 */

/**
 * Longest `Authorization` header read (8 KiB). Real access tokens are a few KiB at most; a larger
 * header is refused (400) before anything parses or verifies it.
 *
 * @example
 * if (header.length > MAX_AUTHORIZATION_BYTES) refuse();
 */
export const MAX_AUTHORIZATION_BYTES = 8 * 1024;

/** `b64token` of RFC 6750 §2.1. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * What an `Authorization` header holds: nothing, a bearer token, another scheme, or garbage.
 *
 * @example
 * const parsed = parseAuthorization('Bearer abc.def.ghi'); // { kind: 'bearer', token: 'abc.def.ghi' }
 */
export type ParsedAuthorization =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer' | 'dpop'; readonly token: string }
  | { readonly kind: 'other-scheme' }
  | { readonly kind: 'malformed'; readonly reason: string };

/**
 * Parse an `Authorization` header value (null: absent). The scheme (`Bearer`, or `DPoP` of RFC
 * 9449 §7.1) is case-insensitive; one or more spaces separate it from the token (RFC 7235
 * `1*SP`), which must be a `b64token`.
 *
 * @example
 * parseAuthorization(null); // { kind: 'none' }
 * parseAuthorization('Basic dXNlcjpwYXNz'); // { kind: 'other-scheme' }
 */
export function parseAuthorization(header: string | null): ParsedAuthorization {
  if (header === null) return { kind: 'none' };
  if (header.length > MAX_AUTHORIZATION_BYTES) {
    return { kind: 'malformed', reason: 'The Authorization header is too large' };
  }
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  const kind = scheme.toLowerCase();
  if (kind !== 'bearer' && kind !== 'dpop') {
    return scheme === ''
      ? { kind: 'malformed', reason: 'The Authorization header is empty' }
      : { kind: 'other-scheme' };
  }
  const token = space < 0 ? '' : header.slice(space + 1).replace(/^ +/, '');
  if (!B64TOKEN.test(token)) {
    return { kind: 'malformed', reason: `The Authorization header must be ${scheme} and one token` };
  }
  return { kind, token };
}

/**
 * A quoted-string for an auth-param: `"` and `\` escaped, anything outside visible ASCII and
 * space replaced (a CR or LF must never reach a header).
 *
 * @example
 * quoteParam('say "hi"'); // '"say \\"hi\\""'
 */
export function quoteParam(value: string): string {
  return `"${value.replace(/[^\x20-\x7E]/g, '?').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * A `WWW-Authenticate` value with the Bearer scheme; parameters with undefined values are left
 * out, the others quoted in the order given.
 *
 * @example
 * bearerChallenge({ error: 'invalid_token', resource_metadata: 'https://example.com/.well-known/oauth-protected-resource' });
 * // 'Bearer error="invalid_token", resource_metadata="https://example.com/.well-known/oauth-protected-resource"'
 */
export function bearerChallenge(params: Readonly<Record<string, string | undefined>>): string {
  return schemeChallenge('Bearer', params);
}

/**
 * A `WWW-Authenticate` challenge with the `DPoP` scheme (RFC 9449 §7.1), formed like
 * {@link bearerChallenge}.
 *
 * @example
 * dpopChallenge({ error: 'invalid_dpop_proof', algs: 'ES256' }); // 'DPoP error="invalid_dpop_proof", algs="ES256"'
 */
export function dpopChallenge(params: Readonly<Record<string, string | undefined>>): string {
  return schemeChallenge('DPoP', params);
}

function schemeChallenge(scheme: string, params: Readonly<Record<string, string | undefined>>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) parts.push(`${key}=${quoteParam(value)}`);
  }
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`;
}
