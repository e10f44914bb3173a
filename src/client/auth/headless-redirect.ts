import type { AuthorizationRedirect } from '../../core/auth.js';
import { AuthorizationError } from './errors.js';
import { isRedirect, type FetchLike } from './http.js';
import { secureUrl } from './urls.js';

/**
 * Options of {@link headlessRedirect}.
 *
 * @example
 * headlessRedirect({ redirectUri: 'http://127.0.0.1:8976/callback' });
 */
export interface HeadlessRedirectOptions {
  /** The registered redirect URI: the authorization server must redirect there, nowhere else. */
  readonly redirectUri: string;
  readonly fetch?: FetchLike;
}

/**
 * An {@link AuthorizationRedirect} without a browser, for tests, the conformance client and
 * authorization servers that approve automatically: GET the authorization URL without following
 * redirects and return its `Location`. Rejects (`redirect-failed`) when the server answers
 * without a redirect (a login page, an error status) or redirects anywhere but `redirectUri`.
 *
 * @example
 * const provider = new OAuthClientProvider({
 *   clientMetadata: { client_name: 'ci', redirect_uris: ['http://127.0.0.1:8976/callback'] },
 *   redirect: headlessRedirect({ redirectUri: 'http://127.0.0.1:8976/callback' }),
 * });
 */
export function headlessRedirect(options: HeadlessRedirectOptions): AuthorizationRedirect {
  const expected = new URL(options.redirectUri);
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  return async (authorizationUrl, signal) => {
    const endpoint = secureUrl(authorizationUrl, 'authorization_endpoint');
    const where = `${endpoint.origin}${endpoint.pathname}`;
    const response = await fetchFn(endpoint.href, { method: 'GET', redirect: 'manual', signal });
    await response.body?.cancel().catch(() => undefined);
    const location = isRedirect(response) ? response.headers.get('location') : null;
    if (!location) {
      throw new AuthorizationError(
        'redirect-failed',
        `authorization endpoint ${where} answered ${response.status} without a redirect`,
      );
    }
    let target: URL;
    try {
      target = new URL(location, endpoint);
    } catch {
      throw new AuthorizationError(
        'redirect-failed',
        `authorization endpoint ${where} redirected to an invalid URL`,
      );
    }
    if (target.origin !== expected.origin || target.pathname !== expected.pathname) {
      throw new AuthorizationError(
        'redirect-failed',
        `authorization endpoint ${where} redirected to ${target.origin}${target.pathname}, not the registered redirect URI`,
      );
    }
    return target;
  };
}
