/**
 * Event-store stream ids of a session's request streams: `<session>:<n>~<request id>`. The request
 * id is in the name (base64 of its JSON, `-` and `.` for `+` and `/`, no padding: no `_`, `{` or `}`, which event ids and Redis hash tags use) so that a process that adopts the session after its
 * owner died (issue 28) knows, from a `Last-Event-ID` alone, which request a resumed stream was
 * for, and can answer it with one clear error when the stored events hold no response.
 */
import { fromBase64, toBase64 } from '../../../core/base64.js';
import type { RequestId } from '../../../core/jsonrpc.js';

/** Longer request ids are left out of the name (the stream then ends without that answer). */
const MAX_ENCODED_ID = 96;

/**
 * The stream id of request `requestId`'s stream, the `n`th of its session (`prefix` keeps an
 * adopted session's new streams apart from its previous owner's).
 *
 * @example
 * requestStreamId('s1', '', 3, 7); // 's1:3~Nw'
 */
export function requestStreamId(sessionId: string, prefix: string, n: number, requestId: RequestId): string {
  const encoded = toBase64(new TextEncoder().encode(JSON.stringify(requestId)))
    .replaceAll('+', '-')
    .replaceAll('/', '.')
    .replace(/=+$/, '');
  const base = `${sessionId}:${prefix}${n}`;
  return encoded.length > MAX_ENCODED_ID ? base : `${base}~${encoded}`;
}

/**
 * The request id a stream id names, if any.
 *
 * @example
 * requestIdOfStream('s1:3~Nw'); // 7
 */
export function requestIdOfStream(streamId: string): RequestId | undefined {
  const cut = streamId.lastIndexOf('~');
  if (cut < 0) return undefined;
  const text = streamId
    .slice(cut + 1)
    .replaceAll('-', '+')
    .replaceAll('.', '/');
  const bytes = fromBase64(text + '='.repeat((4 - (text.length % 4)) % 4));
  if (bytes === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}
