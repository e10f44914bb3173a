/**
 * The 2026-07-28 HTTP binding's header Value Encoding (`Mcp-Name`, `Mcp-Param-*`): a plain value
 * or `=?base64?…?=`. In core because both the HTTP transport (`Mcp-Name`) and the server's tool
 * call (`Mcp-Param-*`, which needs the tool's schema) decode it; no `node:*`.
 */

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Visible ASCII, space and tab: what a plain header value may hold (RFC 9110 field values). */
const PLAIN_VALUE = /^[\x20-\x7e\t]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as the spec's Value Encoding defines it: plain, or `=?base64?…?=` (the UTF-8
 * bytes, Base64). Undefined when it is malformed (bad characters, bad Base64, bad UTF-8).
 *
 * @example
 * decodeHeaderValue('=?base64?SGVsbG8sIOS4lueVjA==?='); // 'Hello, 世界'
 * decodeHeaderValue('get_weather'); // 'get_weather'
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim();
  if (!PLAIN_VALUE.test(value)) return undefined;
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
  try {
    const binary = atob(encoded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** What a client sends plain: visible ASCII and inner spaces. The spec's encoding rule names
 * control characters as needing Base64, and a tab is one, although RFC 9110 would carry it. */
const PLAIN_TO_SEND = /^[\x20-\x7e]*$/;

/**
 * Encode a value for `Mcp-Name` or `Mcp-Param-*` as the spec's Value Encoding requires: plain when
 * it is safe (visible ASCII and inner spaces), else `=?base64?…?=` of its UTF-8 bytes. Safe means
 * no control character (tabs included), no leading or trailing whitespace (a server trims it) and
 * not itself shaped like the sentinel (it would be decoded). The inverse of
 * {@link decodeHeaderValue}, which still accepts a plain tab from other clients.
 *
 * @example
 * encodeHeaderValue('get_weather'); // 'get_weather'
 * encodeHeaderValue('Hello, 世界'); // '=?base64?SGVsbG8sIOS4lueVjA==?='
 */
export function encodeHeaderValue(value: string): string {
  const sentinelShaped = value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX);
  if (PLAIN_TO_SEND.test(value) && value.trim() === value && !sentinelShaped) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${SENTINEL_PREFIX}${btoa(binary)}${SENTINEL_SUFFIX}`;
}
