/**
 * Checks on the HTTP envelope of a request: media types and the bounded body read.
 */
import { ErrorCode } from '../../../core/errors.js';
import { isSupportedVersion } from '../../../core/protocol-version.js';
import { badRequest, httpError } from './responses.js';

/** What an `Accept` header allows. `*Listed` = named explicitly (what strict mode asks for). */
export interface Accepts {
  json: boolean;
  sse: boolean;
  jsonListed: boolean;
  sseListed: boolean;
}

const ANYTHING: Accepts = { json: true, sse: true, jsonListed: false, sseListed: false };

/**
 * Read an `Accept` header. A missing header accepts anything; `q=0` ranges are refusals.
 *
 * @example
 * parseAccept('application/json, text/event-stream'); // { json: true, sse: true, jsonListed: true, sseListed: true }
 */
export function parseAccept(header: string | null): Accepts {
  if (header === null || header.trim() === '') return ANYTHING;
  const result: Accepts = { json: false, sse: false, jsonListed: false, sseListed: false };
  for (const part of header.split(',')) {
    const [rangeText = '', ...params] = part.split(';');
    const range = rangeText.trim().toLowerCase();
    if (params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(param))) continue;
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
  const semicolon = header.indexOf(';');
  const type = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json';
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function tooLarge(limit: number): Response {
  return httpError(413, ErrorCode.InvalidRequest, `Request body larger than ${limit} bytes`);
}

/**
 * Read the body as UTF-8 text, refusing more than `limit` bytes (413) without buffering them.
 * Returns the text, or the error response to send.
 *
 * @example
 * const text = await readBody(request, 4 * 1024 * 1024);
 * if (text instanceof Response) return text;
 */
export async function readBody(request: Request, limit: number): Promise<string | Response> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) {
    discardBody(request);
    return tooLarge(limit);
  }
  const body = request.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limit) {
        reader.cancel().catch(ignore);
        return tooLarge(limit);
      }
      chunks.push(next.value);
    }
  } catch {
    return httpError(400, ErrorCode.InvalidRequest, 'Could not read the request body');
  }
  const bytes = chunks.length === 1 ? chunks[0]! : concat(chunks, size);
  try {
    return decoder.decode(bytes);
  } catch {
    return httpError(400, ErrorCode.ParseError, 'Parse error: the body is not valid UTF-8', { id: null });
  }
}

/** Tell the runtime the body will not be read (so it can drain or drop it). */
export function discardBody(request: Request): void {
  if (request.body && !request.bodyUsed) request.body.cancel().catch(ignore);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function ignore(): void {}

/**
 * Any supported revision is accepted, not only the negotiated one (clients and the conformance
 * suite send others); a missing header is fine (the spec says to assume 2025-03-26).
 *
 * @example
 * if (!versionOk(request)) return unsupportedVersion(request);
 */
export function versionOk(request: Request): boolean {
  const version = request.headers.get('mcp-protocol-version');
  return version === null || isSupportedVersion(version);
}

/** 400 for an unsupported `MCP-Protocol-Version`. */
export function unsupportedVersion(request: Request): Response {
  const version = request.headers.get('mcp-protocol-version');
  return badRequest(`Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)}`);
}
