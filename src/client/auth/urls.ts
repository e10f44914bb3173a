import { AuthorizationError } from './errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `url` names a loopback host (the one place plain `http:` is acceptable).
 *
 * @example
 * isLoopback(new URL('http://127.0.0.1:8080/cb')); // true
 */
export function isLoopback(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
}

/**
 * Parse `value` and refuse anything but `https:`, or `http:` on a loopback host: OAuth metadata,
 * tokens and codes must never cross the network in clear text.
 *
 * @example
 * const tokenEndpoint = secureUrl(metadata.token_endpoint, 'token_endpoint');
 */
export function secureUrl(value: string | URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AuthorizationError('discovery', `${what} is not an absolute URL`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopback(url)) return url;
  throw new AuthorizationError(
    'insecure-url',
    `${what} (${url.origin}) must use https (http is accepted only for localhost, 127.0.0.1 and [::1])`,
  );
}
