import type { DiscoveredAuthorization } from './discovery.js';
import type { BearerChallenge } from './www-authenticate.js';

/**
 * The scopes to request, in the spec's order: an explicit override, else the challenge's `scope`,
 * else the protected resource metadata's `scopes_supported`, else none (no `scope` parameter).
 * On step-up, `prior` (what was requested before) is kept: the new grant must not lose what the
 * old one had (SEP-2350). `offline_access` is added only when the authorization server lists it
 * in its `scopes_supported` (SEP-2207), and only alongside other scopes.
 *
 * @example
 * selectScopes(found, parseBearerChallenge(header), undefined); // 'files:read offline_access'
 */
export function selectScopes(
  discovery: DiscoveredAuthorization,
  challenge: BearerChallenge | undefined,
  prior: readonly string[] | undefined,
  override?: string,
): string[] {
  const split = (s: string | undefined): string[] => (s ?? '').split(' ').filter(Boolean);
  let scopes: string[];
  if (override !== undefined) scopes = split(override);
  else if (challenge?.scope) scopes = split(challenge.scope);
  else scopes = [...(discovery.resourceMetadata?.scopes_supported ?? [])];
  if (prior) scopes = [...prior, ...scopes];
  const asScopes = discovery.authorizationServer.scopes_supported;
  if (scopes.length > 0 && asScopes?.includes('offline_access')) scopes.push('offline_access');
  if (!asScopes?.includes('offline_access')) scopes = scopes.filter((s) => s !== 'offline_access');
  return [...new Set(scopes)];
}
