import { readCappedResponse } from '../../core/read-capped.js';
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

/**
 * `fetchFn`, with every response body read up front and limited to `limit` bytes; past it the
 * request fails with a `too-large` AuthorizationError naming the URL (origin and path only).
 *
 * The reading is the core {@link readCappedResponse}, shared with the server's token verifiers;
 * this one wraps any {@link FetchLike} (the caller's timeouts, signal and redirect policy stay the
 * caller's) and raises the client's error, where the verifiers own their timeout and raise
 * theirs (`src/server/auth/bounded-fetch.ts`).
 *
 * @example
 * const response = await boundedFetch(fetch)('https://auth.example.com/.well-known/oauth-authorization-server');
 */
export function boundedFetch(fetchFn: FetchLike, limit = MAX_OAUTH_RESPONSE_BYTES): FetchLike {
  return async (input, init) => {
    const buffered = await readCappedResponse(await fetchFn(input, init), limit);
    if (buffered !== undefined) return buffered;
    const url = new URL(String(input));
    throw new AuthorizationError(
      'too-large',
      `${url.origin}${url.pathname} answered more than ${limit} bytes`,
    );
  };
}
