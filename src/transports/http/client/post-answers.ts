/**
 * Reading the body of a POST's answer when it is not a stream: the JSON-RPC messages of an
 * `application/json` answer, and what a non-2xx answer says.
 */
import type { RequestId } from '../../../core/jsonrpc.js';
import { readCapped } from '../../../core/read-capped.js';
import { HttpTransportError } from '../../../core/http-errors.js';
import { discard, isObject, readBoundedText, tryParseJson } from './http-body.js';

/** Error bodies are for diagnostics (or one JSON-RPC error): never buffered without end. */
const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * A non-2xx answer to the POST of request `id` (undefined for a notification): the JSON-RPC error
 * response for that id when the body is one (2026-07-28 errors come with 400 and 404), else the
 * local {@link HttpTransportError} carrying the status. Always releases the connection.
 *
 * A 2026-07-28 POST carries exactly one request, so an error with `id: null` in its answer can only
 * be about that request (a server that did not read the id): it is delivered as that request's
 * error. That keeps a modern error such as `-32022` recognisable to the era probe.
 *
 * @example
 * const refusal = await readRefusal(response, 7, true);
 * if ('answer' in refusal) inbox.push(refusal.answer);
 * else throw refusal.error;
 */
export async function readRefusal(
  response: Response,
  id: RequestId | undefined,
  modern = false,
): Promise<{ answer: Record<string, unknown> } | { error: HttpTransportError }> {
  const body = tryParseJson(await readBoundedText(response, ERROR_BODY_LIMIT));
  if (id !== undefined && isObject(body) && isObject(body.error) && typeof body.error.code === 'number') {
    if (body.id === id) return { answer: body };
    if (modern && body.id === null) return { answer: { ...body, id } };
  }
  const detail = isObject(body) && isObject(body.error) ? String(body.error.message) : response.statusText;
  const message = `HTTP ${response.status}${detail ? `: ${detail}` : ''}`;
  return { error: new HttpTransportError(message, response.status) };
}

/**
 * The messages of an `application/json` answer (one message or a batch; none for an empty body),
 * read incrementally and never more than `maxBytes` of it: a server must not be able to make us
 * buffer without end (valid JSON followed by endless whitespace is still valid JSON). Throws
 * {@link HttpTransportError} when the body is larger (reading stops there, the rest is cancelled)
 * or is not JSON.
 *
 * @example
 * for (const message of await readJsonMessages(response, 16 * 1024 * 1024)) inbox.push(message);
 */
export async function readJsonMessages(response: Response, maxBytes: number): Promise<unknown[]> {
  const announced = Number(response.headers.get('content-length') ?? NaN);
  const body = announced > maxBytes ? undefined : await readCapped(response, maxBytes);
  if (body === undefined) {
    await discard(response);
    throw new HttpTransportError(
      `The server's application/json answer is larger than ${maxBytes} bytes (the maxJsonSize option ` +
        'of StreamableHttpClientTransport); it was not read further',
      response.status,
    );
  }
  const text = new TextDecoder().decode(body);
  if (text.trim() === '') return [];
  const parsed = tryParseJson(text);
  if (parsed === undefined)
    throw new HttpTransportError('The server answered with invalid JSON', response.status);
  return Array.isArray(parsed) ? parsed : [parsed];
}
