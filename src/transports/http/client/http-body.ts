/**
 * Small helpers for the bodies the client transport reads (or deliberately does not read).
 */

/**
 * Release a response's connection without reading it. Never throws.
 *
 * @example
 * if (response.status === 202) await discard(response);
 */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/**
 * The media type of a response, lower-cased, without parameters.
 *
 * @example
 * mediaType(new Response('', { headers: { 'content-type': 'Text/Event-Stream; charset=utf-8' } })); // 'text/event-stream'
 */
export function mediaType(response: Response): string | undefined {
  const value = response.headers.get('content-type');
  if (!value) return undefined;
  return value.split(';', 1)[0]!.trim().toLowerCase() || undefined;
}

/**
 * Read at most `limit` characters of a body (error bodies are for diagnostics only: a server must
 * not be able to make us buffer without end), then release the connection.
 *
 * @example
 * const detail = await readBoundedText(response, 64 * 1024);
 */
export async function readBoundedText(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, limit);
}

/**
 * `JSON.parse` that answers `undefined` instead of throwing.
 *
 * @example
 * tryParseJson('{"a":1}'); // { a: 1 }
 * tryParseJson('nope'); // undefined
 */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export { isJsonObject as isObject } from '../../../core/jsonrpc.js';
