/**
 * One outbound HTTP call of a verifier (JWKS, issuer metadata, introspection), bounded in time
 * from the request to the last body byte and in the bytes read, with its timer cleared as soon
 * as it is done.
 */
import { readCapped } from '../../core/read-capped.js';
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
  let response: Response;
  let body: Uint8Array<ArrayBuffer>;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: controller.signal });
    body = await readBody(response, maxBytes, controller);
  } catch (error) {
    if (error instanceof TooLarge) {
      throw new TokenVerifierUnavailableError(`${where} answered more than ${maxBytes} bytes`);
    }
    const why = controller.signal.aborted ? 'did not answer in time' : 'is unreachable';
    throw new TokenVerifierUnavailableError(`${where} ${why}`, { cause: error });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
  return new Response(body, { status: response.status, headers: response.headers });
}

class TooLarge extends Error {}

/** The body, or TooLarge as soon as more than `maxBytes` arrive (the rest is never read). */
async function readBody(
  response: Response,
  maxBytes: number,
  controller: AbortController,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!response.body) return new Uint8Array(0);
  // Abort first, then cancel: the connection is dropped, not drained.
  const drop = (): void => controller.abort();
  if (Number(response.headers.get('content-length')) > maxBytes) {
    drop();
    await response.body.cancel().catch(() => undefined);
    throw new TooLarge();
  }
  const body = await readCapped(response, maxBytes, drop);
  if (body === undefined) throw new TooLarge();
  return body;
}
