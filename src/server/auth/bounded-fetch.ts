/**
 * One outbound HTTP call of a verifier (JWKS, issuer metadata, introspection), bounded in time
 * from the request to the last body byte and in the bytes read, with its timer cleared as soon
 * as it is done.
 */
import { readCappedResponse } from '../../core/read-capped.js';
import { TokenVerifierUnavailableError } from './errors.js';

/**
 * Most bytes read from one verifier response (256 KiB): a JWKS, a metadata document or an
 * introspection answer is a few KiB; a larger body is not read into memory.
 *
 * @example
 * await boundedFetch(url, init, 5_000, undefined, MAX_VERIFIER_RESPONSE_BYTES);
 */
export const MAX_VERIFIER_RESPONSE_BYTES = 256 * 1024;

/**
 * `fetch`, with the whole body read within `timeoutMs` and `maxBytes` (the returned Response
 * holds it in memory). A network failure, a timeout or a body past the cap rejects with
 * `TokenVerifierUnavailableError` naming the endpoint's origin and path only (answered 503, like
 * an unreachable verifier). Redirects are not followed.
 *
 * The reading is the core {@link readCappedResponse}, shared with the OAuth client's
 * `boundedFetch`; this one adds what a verifier needs and the client leaves to its caller: its
 * own timeout over the whole exchange, no redirects, and the verifier's error.
 *
 * @example
 * const response = await boundedFetch(new URL('https://auth.example.com/jwks'), { method: 'GET' }, 5_000);
 */
export async function boundedFetch(
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  signal?: AbortSignal,
  maxBytes = MAX_VERIFIER_RESPONSE_BYTES,
): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const stop = (): void => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  const where = `${url.origin}${url.pathname}`;
  let buffered: Response | undefined;
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: controller.signal });
    // Past the cap, abort before cancelling: the connection is dropped, not drained.
    buffered = await readCappedResponse(response, maxBytes, stop);
  } catch (error) {
    const why = controller.signal.aborted ? 'did not answer in time' : 'is unreachable';
    throw new TokenVerifierUnavailableError(`${where} ${why}`, { cause: error });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
  if (buffered === undefined) {
    throw new TokenVerifierUnavailableError(`${where} answered more than ${maxBytes} bytes`);
  }
  return buffered;
}
