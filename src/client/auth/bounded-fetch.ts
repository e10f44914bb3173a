import { readCapped } from '../../core/read-capped.js';
import { AuthorizationError } from './errors.js';

/**
 * The `fetch` an OAuth client uses (the global one unless an option replaces it).
 *
 * @example
 * const fetchFn: FetchLike = (url, init) => fetch(url, init);
 */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Largest OAuth response body the client reads (metadata, registration, token): real ones are a
 * few KiB; a server that sends more is refused instead of filling memory.
 *
 * @example
 * if (body.length > MAX_OAUTH_RESPONSE_BYTES) throw new Error('too large');
 */
export const MAX_OAUTH_RESPONSE_BYTES = 1024 * 1024;

/** Statuses whose Response cannot be rebuilt with a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `fetchFn`, with every response body read up front and limited to `limit` bytes; past it the
 * request fails with a `too-large` AuthorizationError naming the URL (origin and path only).
 *
 * @example
 * const response = await boundedFetch(fetch)('https://auth.example.com/.well-known/oauth-authorization-server');
 */
export function boundedFetch(fetchFn: FetchLike, limit = MAX_OAUTH_RESPONSE_BYTES): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (!response.body || NULL_BODY.has(response.status) || response.type === 'opaqueredirect')
      return response;
    const body = await readCapped(response, limit);
    if (body === undefined) {
      const url = new URL(String(input));
      throw new AuthorizationError(
        'too-large',
        `${url.origin}${url.pathname} answered more than ${limit} bytes`,
      );
    }
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
