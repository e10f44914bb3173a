/**
 * Reading and freezing {@link AuthInfo} values.
 */
import type { AuthInfo } from '../../core/auth.js';

/**
 * A frozen copy of what a verifier returned, keeping only the {@link AuthInfo} fields (so a
 * custom verifier cannot slip the raw token through under another name... except in `claims`,
 * which it controls). Throws a TypeError when `scopes` is not a list of strings.
 *
 * @example
 * const auth = freezeAuthInfo({ subject: 'alice', scopes: ['read'] });
 */
export function freezeAuthInfo(value: AuthInfo): AuthInfo {
  if (!isAuthInfo(value))
    throw new TypeError('A TokenVerifier must resolve with an AuthInfo (scopes: string[])');
  const out: { -readonly [K in keyof AuthInfo]: AuthInfo[K] } = { scopes: Object.freeze([...value.scopes]) };
  if (value.subject !== undefined) out.subject = value.subject;
  if (value.clientId !== undefined) out.clientId = value.clientId;
  if (value.issuer !== undefined) out.issuer = value.issuer;
  if (value.audience !== undefined) out.audience = Object.freeze([...value.audience]);
  if (value.expiresAt !== undefined) out.expiresAt = value.expiresAt;
  if (value.claims !== undefined) out.claims = Object.freeze({ ...value.claims });
  return Object.freeze(out);
}

/**
 * True when `value` has the shape of an {@link AuthInfo} (`scopes` is a list of strings): what a
 * resource server established, or what a host's own authentication passed in that shape.
 *
 * @example
 * isAuthInfo({ subject: 'alice', scopes: [] }); // true
 * isAuthInfo({ user: 'alice' }); // false
 */
export function isAuthInfo(value: unknown): value is AuthInfo {
  if (typeof value !== 'object' || value === null) return false;
  const scopes = (value as { scopes?: unknown }).scopes;
  return Array.isArray(scopes) && scopes.every((scope) => typeof scope === 'string');
}
