/**
 * The relay messages that carry one HTTP exchange between the process that received it (the
 * *forwarder*) and the process that owns its session (the *owner*). JSON text; `x` is the
 * exchange id, unique per forwarding node, so the owner keys exchanges by (sender, `x`).
 *
 * Forwarder → owner: `open` (the request), `gone` (the client left).
 * Owner → forwarder: `head` (status and headers; `b` a complete body, `null` for none, absent
 * when an event stream follows as `data` chunks), then `end` or `abort`. A JSON body larger than
 * {@link PIECE_CHARS} comes as a `head` with `j: 1` and no `b`, then `data` pieces and `end`, so no
 * message grows with the reply. An `abort` before any head means the owner dropped the exchange
 * (its relay connection broke, or it is closing): the forwarder answers as if the owner stopped.
 *
 * Every message is bounded ({@link messageLimit}): a larger one is refused and its exchange
 * failed, so a peer's bug cannot make a process buffer without bound.
 */

import { fromBase64, toBase64 } from '../../../core/base64.js';

/** A relayed request: method, headers, body (text, or base64 when not UTF-8), host facts. */
export interface OpenMessage {
  t: 'open';
  x: string;
  m: string;
  h: [string, string][];
  b?: string;
  b64?: string;
  e?: { remoteAddress?: string | undefined; authInfo?: unknown };
}

/** The reply head; `b` undefined means a body follows in `data` pieces: SSE, or JSON when `j` is 1. */
export interface HeadMessage {
  t: 'head';
  x: string;
  s: number;
  h: [string, string][];
  b?: string | null;
  j?: 1;
}

/**
 * Largest `data` piece, in UTF-16 units. Even if JSON escaping made every unit six characters
 * long, a piece stays under {@link OTHER_LIMIT}.
 */
export const PIECE_CHARS = 128 * 1024;
/** Bound on every message but `open`, in characters. */
export const OTHER_LIMIT = 1024 * 1024;

/**
 * The largest message of kind `t` a process sends or accepts. An `open` carries the request body
 * (at most `maxBodyBytes`), which JSON escaping or base64 can make longer: twice the body, plus
 * 64 KiB for headers and the rest.
 *
 * @example
 * if (text.length > messageLimit('open', maxBodyBytes)) refuse();
 */
export function messageLimit(t: string, maxBodyBytes: number): number {
  return t === 'open' ? 2 * maxBodyBytes + 64 * 1024 : OTHER_LIMIT;
}

/**
 * `text` cut into pieces of at most {@link PIECE_CHARS}, never between the two halves of a
 * surrogate pair (each piece is written to the client on its own and must stay valid text).
 *
 * @example
 * for (const d of pieces(body)) link.send(from, { t: 'data', x, d });
 */
export function pieces(text: string, size = PIECE_CHARS): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(at + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && end - at > 1 && last >= 0xd800 && last <= 0xdbff) end--;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

const PREFIX = /^\{"t":"(open|head|data|end|abort|gone)","x":"([^"\\]*)"/;

/**
 * Kind and exchange id of a message, read from its first characters without parsing it (for a
 * message too large to parse): every message this code sends starts with `t` then `x`.
 *
 * @example
 * const peek = peekMessage(text); // { t: 'open', x: 'k3v.7' } or undefined
 */
export function peekMessage(text: string): { t: string; x: string } | undefined {
  const match = PREFIX.exec(text.slice(0, 256));
  return match ? { t: match[1]!, x: match[2]! } : undefined;
}

/** Owner → forwarder stream pieces; forwarder → owner `gone`. */
export type StreamMessage =
  | { t: 'data'; x: string; d: string }
  /** `n`: how many `data` pieces a chunked JSON body came in (absent after an SSE stream). */
  | { t: 'end'; x: string; n?: number }
  | { t: 'abort'; x: string }
  | { t: 'gone'; x: string };

/**
 * Any message of the tunnel.
 *
 * @example
 * const message: TunnelMessage = { t: 'gone', x: '7' };
 */
export type TunnelMessage = OpenMessage | HeadMessage | StreamMessage;

function isHeaderList(value: unknown): value is [string, string][] {
  return (
    Array.isArray(value) &&
    value.every(
      (pair) =>
        Array.isArray(pair) &&
        pair.length === 2 &&
        typeof pair[0] === 'string' &&
        typeof pair[1] === 'string',
    )
  );
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

/**
 * Parse and check one relay message; `undefined` for anything malformed (the caller ignores it:
 * a peer's bug, or a message of another kind, must never crash this process).
 *
 * @example
 * const message = parseTunnelMessage(text);
 * if (!message) return logger.debug('ignored a malformed relay message');
 */
export function parseTunnelMessage(text: string): TunnelMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  if (typeof m.x !== 'string') return undefined;
  switch (m.t) {
    case 'open': {
      const e = m.e;
      const extraOk =
        e === undefined ||
        (typeof e === 'object' && e !== null && optionalString((e as Record<string, unknown>).remoteAddress));
      if (typeof m.m !== 'string' || !isHeaderList(m.h) || !optionalString(m.b) || !optionalString(m.b64))
        return undefined;
      return extraOk ? (m as unknown as OpenMessage) : undefined;
    }
    case 'head':
      if (typeof m.s !== 'number' || !Number.isInteger(m.s) || m.s < 100 || m.s > 599) return undefined;
      if (!isHeaderList(m.h) || !(m.b === null || optionalString(m.b))) return undefined;
      if (m.j !== undefined && (m.j !== 1 || m.b !== undefined)) return undefined;
      return m as unknown as HeadMessage;
    case 'data':
      return typeof m.d === 'string' ? (m as unknown as StreamMessage) : undefined;
    case 'end':
      if (m.n !== undefined && !(typeof m.n === 'number' && Number.isInteger(m.n) && m.n >= 0))
        return undefined;
      return m as unknown as StreamMessage;
    case 'abort':
    case 'gone':
      return m as unknown as StreamMessage;
    default:
      return undefined;
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A body as the `open` message carries it: text when it is valid UTF-8 (the normal JSON case),
 * else base64, so any byte sequence reaches the owner unchanged (and its checks answer it).
 *
 * @example
 * Object.assign(open, encodeBody(bytes)); // { b: '{"jsonrpc":...}' } or { b64: '...' }
 */
export function encodeBody(bytes: Uint8Array): { b?: string; b64?: string } {
  if (bytes.byteLength === 0) return {};
  try {
    return { b: decoder.decode(bytes) };
  } catch {
    return { b64: toBase64(bytes) };
  }
}

const encoder = new TextEncoder();

/**
 * The body bytes of an `open` message (undefined base64 is a malformed message: empty body).
 *
 * @example
 * const bytes = decodeBody(open); // Uint8Array
 */
export function decodeBody(open: OpenMessage): Uint8Array {
  if (open.b !== undefined) return encoder.encode(open.b);
  if (open.b64 === undefined) return new Uint8Array(0);
  return fromBase64(open.b64) ?? new Uint8Array(0);
}

/**
 * `authInfo` as JSON when it survives a round trip as JSON (a plain verified caller does);
 * otherwise it is left out: the owner re-runs its own auth gate anyway.
 *
 * @example
 * const authInfo = jsonSafe(extra?.authInfo);
 */
export function jsonSafe(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
