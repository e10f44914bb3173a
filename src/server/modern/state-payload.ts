/**
 * What a signed requestState carries (the round, the answers so far, the questions of the last
 * round) and how its payload is read back once its signature has been verified.
 */
import { RequestStateError } from './mrtr-errors.js';
import type { BoundFields } from './state-binding.js';
import { fromBase64Url, fromUtf8 } from './state-encoding.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';

/**
 * An answer carried from an earlier round: the method, the fingerprint of the question, the result.
 *
 * @example
 * const answer: StoredAnswer = { m: 'roots/list', q: '1x2y3z', r: { roots: [] } };
 */
export interface StoredAnswer {
  readonly m: string;
  readonly q: string;
  readonly r: JsonObject;
}

/**
 * A question asked in the last round: the method and the fingerprint of its params.
 *
 * @example
 * const asked: StoredQuestion = { m: 'elicitation/create', q: '1x2y3z' };
 */
export interface StoredQuestion {
  readonly m: string;
  readonly q: string;
}

/**
 * The progress a state carries.
 *
 * @example
 * const content: RequestStateContent = { round: 1, answers: {}, asked: { user_name: { m: 'elicitation/create', q: 'abc' } } };
 */
export interface RequestStateContent {
  /** How many `input_required` answers this request has had so far (1 after the first). */
  readonly round: number;
  readonly answers: { readonly [key: string]: StoredAnswer };
  readonly asked: { readonly [key: string]: StoredQuestion };
}

/** Version of the payload layout; a state of another version is malformed. */
export const PAYLOAD_VERSION = 1;

/** @internal The signed JSON: version, expiry, binding fields, then the content. */
export interface Payload extends BoundFields {
  v: number;
  exp: number;
  r: number;
  a: { [key: string]: StoredAnswer };
  q: { [key: string]: StoredQuestion };
}

/**
 * @internal The error for a state that is not one of ours in shape.
 *
 * @example
 * throw malformedState();
 */
export function malformedState(): RequestStateError {
  return new RequestStateError(
    'malformed',
    'requestState is malformed (it must be echoed exactly as the server sent it)',
  );
}

/**
 * @internal Decode a verified payload (base64url JSON) and check its shape.
 *
 * @example
 * const payload = parsePayload(body); // after the HMAC over it was verified
 */
export function parsePayload(body: string): Payload {
  let value: unknown;
  try {
    value = JSON.parse(fromUtf8(fromBase64Url(body) ?? new Uint8Array([0xff])));
  } catch {
    throw malformedState();
  }
  // Signed by this server, so the shape is ours; checked anyway in case a key is shared with an
  // incompatible version.
  if (
    !isJsonObject(value) ||
    value.v !== PAYLOAD_VERSION ||
    typeof value.exp !== 'number' ||
    typeof value.m !== 'string' ||
    typeof value.d !== 'string' ||
    !Number.isInteger(value.r) ||
    !isJsonObject(value.a) ||
    !isJsonObject(value.q)
  ) {
    throw malformedState();
  }
  return value as unknown as Payload;
}
