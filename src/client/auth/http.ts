import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import { isLoopback, secureUrl } from './urls.js';
import { boundedFetch, type FetchLike } from './bounded-fetch.js';

export type { FetchLike } from './bounded-fetch.js';

/** The global fetch, looked up at call time (tests and polyfills may replace it). */
const globalFetch: FetchLike = (input, init) => fetch(input, init);

/**
 * What every OAuth request needs: the fetch to use and the caller's abort signal.
 *
 * @example
 * const ctx: HttpContext = { fetch: globalThis.fetch, signal: AbortSignal.timeout(10_000) };
 */
export interface HttpContext {
  readonly fetch?: FetchLike;
  readonly signal?: AbortSignal;
}

/**
 * The oauth4webapi request options every request here uses (assignable to each request's options).
 *
 * @example
 * const options: OAuthRequestOptions = requestOptions(tokenUrl, ctx);
 */
export interface OAuthRequestOptions {
  [oauth.allowInsecureRequests]: boolean;
  [oauth.customFetch]?: OAuthFetch;
  signal?: AbortSignal;
}

/**
 * The fetch oauth4webapi calls: its GET requests pass `body: undefined`, which `RequestInit` does
 * not admit under `exactOptionalPropertyTypes` (fetch itself takes it as no body).
 *
 * @example
 * const f: OAuthFetch = (url, init) => fetch(url, init as RequestInit);
 */
export type OAuthFetch = (
  url: string,
  init: Omit<RequestInit, 'body'> & { body?: BodyInit | null | undefined },
) => Promise<Response>;

/**
 * oauth4webapi request options for a request to `url`: our fetch, our signal, and plain http
 * allowed only for loopback hosts (the library refuses it otherwise, and so do we).
 *
 * @example
 * await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, requestOptions(tokenUrl, ctx));
 */
export function requestOptions(url: URL, ctx: HttpContext): OAuthRequestOptions {
  secureUrl(url, 'OAuth endpoint');
  const options: OAuthRequestOptions = {
    [oauth.allowInsecureRequests]: isLoopback(url),
  };
  // A FetchLike receives the init as fetch does: `body: undefined` on a GET means no body.
  options[oauth.customFetch] = boundedFetch(ctx.fetch ?? globalFetch) as OAuthFetch;
  if (ctx.signal) options.signal = ctx.signal;
  return options;
}

/**
 * Whether a response is a redirect that `redirect: 'manual'` handed back instead of following.
 *
 * @example
 * if (isRedirect(response)) throw new AuthorizationError('redirect', 'token endpoint redirected');
 */
export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/**
 * GET a metadata document without following redirects (a 3xx comes back as is: a metadata
 * document served from another origin could lie about every endpoint).
 *
 * @example
 * const response = await getMetadata(new URL('https://mcp.example.com/.well-known/oauth-protected-resource'), ctx);
 */
export async function getMetadata(url: URL, ctx: HttpContext): Promise<Response> {
  secureUrl(url, 'metadata URL');
  const fetchFn = boundedFetch(ctx.fetch ?? globalFetch);
  try {
    return await fetchFn(url.href, {
      method: 'GET',
      headers: { accept: 'application/json' },
      redirect: 'manual',
      ...(ctx.signal && { signal: ctx.signal }),
    });
  } catch (error) {
    throw abortedOr(
      error,
      ctx.signal,
      () => new AuthorizationError('discovery', `GET ${url.origin}${url.pathname} failed`, { cause: error }),
    );
  }
}

/**
 * The error to throw for `error`: an `aborted` AuthorizationError when the caller's signal fired,
 * else `otherwise()`.
 *
 * @example
 * catch (e) { throw abortedOr(e, signal, () => new AuthorizationError('token', 'token request failed', { cause: e })); }
 */
export function abortedOr(error: unknown, signal: AbortSignal | undefined, otherwise: () => Error): Error {
  if (error instanceof AuthorizationError) return error;
  if (signal?.aborted)
    return new AuthorizationError('aborted', 'authorization aborted', { cause: signal.reason });
  return otherwise();
}
