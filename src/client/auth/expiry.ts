/**
 * The one expiry rule of the OAuth client, for the code flow's tokens and the machine grants'
 * alike: a token counts as expired a margin before its `expires_in` says it ends (clock skew,
 * transit), the smaller of {@link EXPIRY_MARGIN_MS} and half its lifetime, so that a token living
 * 30 s or less is not expired on arrival (which would cost a token request per MCP request).
 */

/**
 * The largest margin before `expires_at` at which a token counts as expired.
 *
 * @example
 * const margin = Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 2);
 */
export const EXPIRY_MARGIN_MS = 30_000;

/**
 * Whether a token that ends at `expiresAt` and was issued at `issuedAt` (both ms since the epoch)
 * counts as expired at `now`. No `expiresAt`: never. No `issuedAt` (tokens stored by an older
 * version): the full {@link EXPIRY_MARGIN_MS} applies.
 *
 * @example
 * tokenExpired(issued + 20_000, issued, issued + 5_000); // false: a 20 s token renews after 10 s
 */
export function tokenExpired(
  expiresAt: number | undefined,
  issuedAt: number | undefined,
  now: number,
): boolean {
  if (expiresAt === undefined) return false;
  const lifetime = issuedAt === undefined ? Infinity : expiresAt - issuedAt;
  return now >= expiresAt - Math.min(EXPIRY_MARGIN_MS, Math.max(0, lifetime) / 2);
}
