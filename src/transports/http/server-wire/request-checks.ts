/**
 * Checks on the HTTP envelope of a request: media types, the protocol version header and the
 * bounded body read.
 */
import { ErrorCode } from '../../../core/errors.js';
import { isSupportedVersion } from '../../../core/protocol-version.js';
import type { BodyFault, HttpExchange, HttpReply } from './exchange.js';
import { badRequest, httpError, messageError } from './responses.js';

/** What an `Accept` header allows. `*Listed` = named explicitly (what strict mode asks for). */
export interface Accepts {
  readonly json: boolean;
  readonly sse: boolean;
  readonly jsonListed: boolean;
  readonly sseListed: boolean;
}

const ANYTHING: Accepts = Object.freeze({ json: true, sse: true, jsonListed: false, sseListed: false });
const ZERO_QUALITY = /^\s*q\s*=\s*0(\.0*)?\s*$/i;

/**
 * Parsed `Accept` values. A client sends the same header on every request, so the answer for a
 * header value is kept (bounded: cleared when full, values are tiny).
 */
const acceptMemo = new Map<string, Accepts>();
const ACCEPT_MEMO_MAX = 64;

/**
 * Read an `Accept` header. A missing header accepts anything; `q=0` ranges are refusals.
 *
 * @example
 * parseAccept('application/json, text/event-stream'); // { json: true, sse: true, jsonListed: true, sseListed: true }
 */
export function parseAccept(header: string | null): Accepts {
  if (header === null) return ANYTHING;
  let result = acceptMemo.get(header);
  if (result === undefined) {
    result = Object.freeze(readAccept(header));
    if (acceptMemo.size >= ACCEPT_MEMO_MAX) acceptMemo.clear();
    acceptMemo.set(header, result);
  }
  return result;
}

function readAccept(header: string): Accepts {
  if (header.trim() === '') return ANYTHING;
  const result = { json: false, sse: false, jsonListed: false, sseListed: false };
  for (const part of header.split(',')) {
    const [rangeText = '', ...params] = part.split(';');
    const range = rangeText.trim().toLowerCase();
    if (params.some((param) => ZERO_QUALITY.test(param))) continue;
    if (range === 'application/json') result.json = result.jsonListed = true;
    else if (range === 'text/event-stream') result.sse = result.sseListed = true;
    else if (range === '*/*') result.json = result.sse = true;
    else if (range === 'application/*') result.json = true;
    else if (range === 'text/*') result.sse = true;
  }
  return result;
}

/**
 * True for `application/json` (any parameters, e.g. `; charset=utf-8`).
 *
 * @example
 * isJsonContentType('application/json; charset=utf-8'); // true
 */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  if (header === 'application/json') return true;
  const semicolon = header.indexOf(';');
  const type = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json';
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The 413 for a body over `limit` bytes (the same answer here and from a relaying process).
 *
 * @example
 * if (size > limit) return tooLargeReply(limit);
 */
export function tooLargeReply(limit: number): HttpReply {
  return httpError(413, ErrorCode.InvalidRequest, `Request body larger than ${limit} bytes`);
}

/**
 * Read the body's bytes, refusing more than `limit` (413) without buffering them; 400 when it
 * cannot be read. Returns the bytes, or the reply to send.
 *
 * @example
 * const bytes = await readBodyBytes(exchange, 4 * 1024 * 1024);
 * if (!(bytes instanceof Uint8Array)) return bytes;
 */
export function readBodyBytes(exchange: HttpExchange, limit: number): Promise<Uint8Array | HttpReply> {
  // One promise step, not async functions: every POST comes through here, and each async frame
  // (its generator object, the promise of each `await`) is garbage per request. The callers
  // await it in async functions, so an exchange that throws still ends as their rejection.
  const refused = declaredTooLarge(exchange, limit);
  if (refused) return Promise.resolve(refused);
  return exchange.readBody(limit).then((bytes) => bytesOrReply(bytes, limit));
}

/**
 * Read the body as UTF-8 text, refusing more than `limit` bytes (413) without buffering them.
 * Returns the text, or the reply to send.
 *
 * @example
 * const text = await readBody(exchange, 4 * 1024 * 1024);
 * if (typeof text !== 'string') return text;
 */
export function readBody(exchange: HttpExchange, limit: number): Promise<string | HttpReply> {
  const refused = declaredTooLarge(exchange, limit);
  if (refused) return Promise.resolve(refused);
  return exchange.readBody(limit).then((bytes) => textOrReply(bytes, limit));
}

/** The 413 for a declared `Content-Length` over `limit` (the body is then discarded unread). */
function declaredTooLarge(exchange: HttpExchange, limit: number): HttpReply | undefined {
  const declared = exchange.header('content-length');
  if (declared === null || !(Number(declared) > limit)) return undefined;
  exchange.discardBody();
  return tooLargeReply(limit);
}

function bytesOrReply(bytes: Uint8Array | BodyFault, limit: number): Uint8Array | HttpReply {
  if (bytes === 'too-large') return tooLargeReply(limit);
  if (bytes === 'unreadable')
    return httpError(400, ErrorCode.InvalidRequest, 'Could not read the request body');
  return bytes;
}

function textOrReply(read: Uint8Array | BodyFault, limit: number): string | HttpReply {
  const bytes = bytesOrReply(read, limit);
  if (!(bytes instanceof Uint8Array)) return bytes;
  try {
    return decoder.decode(bytes);
  } catch {
    return messageError(ErrorCode.ParseError, 'Parse error: the body is not valid UTF-8', null);
  }
}

/**
 * The `MCP-Protocol-Version` header, when present, must name a supported revision. Any supported
 * revision is accepted, not only the negotiated one (clients and the conformance suite send
 * others); a missing header is fine (the spec says to assume 2025-03-26).
 *
 * @example
 * const refused = checkVersion(exchange);
 * if (refused) return refused;
 */
export function checkVersion(exchange: HttpExchange): HttpReply | undefined {
  const version = exchange.header('mcp-protocol-version');
  if (version === null || isSupportedVersion(version)) return undefined;
  return badRequest(`Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)}`);
}
