/**
 * One outbound HTTP call of a verifier (JWKS, issuer metadata, introspection), bounded in time
 * from the request to the last body byte, with its timer cleared as soon as it is done.
 */
import { TokenVerifierUnavailableError } from './errors.js';

/**
 * `fetch`, with the whole body read within `timeoutMs` (the returned Response holds it in
 * memory). A network failure or timeout rejects with `TokenVerifierUnavailableError` naming the
 * endpoint's origin only. Redirects are not followed.
 *
 * @example
 * const response = await boundedFetch(new URL('https://auth.example.com/jwks'), { method: 'GET' }, 5_000);
 */
export async function boundedFetch(
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const stop = (): void => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: controller.signal });
    const body = await response.arrayBuffer();
    return new Response(body, { status: response.status, headers: response.headers });
  } catch (error) {
    const why = controller.signal.aborted ? 'did not answer in time' : 'is unreachable';
    throw new TokenVerifierUnavailableError(`${url.origin}${url.pathname} ${why}`, { cause: error });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}
