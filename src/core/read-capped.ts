/**
 * Reading a response body whose size the peer chooses, without letting the peer choose how much
 * memory it takes.
 */

/**
 * The whole body of `response`, or undefined as soon as more than `maxBytes` arrived (the rest is
 * never read: `beforeCancel` runs, then the reader is cancelled). A response without a body reads
 * as empty.
 *
 * @example
 * const body = await readCapped(response, 64 * 1024);
 * if (body === undefined) throw new Error('too large');
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  beforeCancel?: () => void,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      beforeCancel?.();
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Statuses whose Response cannot be rebuilt with a body (the constructor throws). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * `response` with its whole body read into memory (a new Response with the same status, status
 * text and headers), or undefined when the body is over `maxBytes`: a `content-length` over the
 * cap is refused before reading, a body that grows past it stops being read. Either way
 * `beforeCancel` runs first (to abort the request, so the connection is dropped rather than
 * drained), then the body is cancelled. A response that carries no body (none, a null-body
 * status, an opaque redirect) is returned as it is.
 *
 * The OAuth client's and the token verifiers' `boundedFetch` both read their answers through
 * this; they differ only in how they fetch (timeout, redirects) and which error they raise.
 *
 * @example
 * const buffered = await readCappedResponse(await fetch(url), 256 * 1024);
 * if (buffered === undefined) throw new Error(`${url} answered too much`);
 */
export async function readCappedResponse(
  response: Response,
  maxBytes: number,
  beforeCancel?: () => void,
): Promise<Response | undefined> {
  if (!response.body || NULL_BODY_STATUSES.has(response.status) || response.type === 'opaqueredirect')
    return response;
  if (Number(response.headers.get('content-length')) > maxBytes) {
    beforeCancel?.();
    await response.body.cancel().catch(() => undefined);
    return undefined;
  }
  const body = await readCapped(response, maxBytes, beforeCancel);
  if (body === undefined) return undefined;
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
