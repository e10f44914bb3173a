/**
 * The signed `requestState` of multi round-trip requests.
 *
 * The spec makes `requestState` attacker-controlled input: the client echoes it, and could change
 * it. Keel keeps a request's progress in it (the round number and the answers so far), so it is
 * signed with HMAC-SHA-256 (WebCrypto, runtime-neutral) and bound to the request it was issued for
 * (method, tool/prompt name or resource URI, a digest of the canonical JSON of the params), to the
 * principal when there is one, and to an expiry. Signed, not encrypted: the client can read it, and
 * it only holds what the client sent or was shown anyway.
 *
 * Token: `<key id>.<base64url payload JSON>.<base64url HMAC>`. The HMAC covers a fixed domain
 * prefix, the key id and the payload, so nothing is parsed before it is verified.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import { RequestStateError } from './mrtr-errors.js';
import { canonicalJson, fromBase64Url, fromUtf8, sha256, toBase64Url, utf8 } from './state-encoding.js';

/**
 * Key material: a string (its UTF-8 bytes) or bytes, at least 32 bytes either way.
 *
 * @example
 * const secret: RequestStateSecret = process.env.KEEL_STATE_KEY!; // e.g. `openssl rand -base64 32`
 */
export type RequestStateSecret = string | Uint8Array;

/**
 * A signing key. A bare secret gets an id derived from it (a hash prefix); give `id` to choose it.
 *
 * @example
 * const keys: RequestStateKey[] = [{ id: '2026-07', secret: newSecret }, { id: '2026-06', secret: oldSecret }];
 */
export type RequestStateKey = RequestStateSecret | { id: string; secret: RequestStateSecret };

/**
 * How requestState is signed and checked.
 *
 * @example
 * const options: RequestStateOptions = { keys: [newKey, oldKey], ttlMs: 15 * 60_000 };
 */
export interface RequestStateOptions {
  /**
   * The first key signs, every key verifies (rotation: put the new key first, keep the old one
   * until states it signed have expired). Default: one random key for this process only, so a
   * retry must reach the same process; give every process the same keys to let any of them serve it.
   */
  readonly keys?: readonly RequestStateKey[];
  /** How long a state stays valid after it was issued. Default 10 minutes. */
  readonly ttlMs?: number;
  /** The largest state accepted or issued, in bytes. Default 64 KiB. */
  readonly maxBytes?: number;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * What a state is bound to. Built by {@link bindRequest}.
 *
 * @example
 * const binding = await bindRequest('tools/call', { name: 'greet', arguments: { who: 'Ada' } }, 'user-42');
 */
export interface RequestBinding {
  readonly method: string;
  /** Tool or prompt name, or resource URI (for messages; the digest covers it too). */
  readonly target: string | undefined;
  /** SHA-256 of the canonical JSON of the params without `_meta`, `inputResponses`, `requestState`. */
  readonly paramsDigest: string;
  /** SHA-256 of the principal (the principal itself is not written into the state). */
  readonly principalDigest: string | undefined;
}

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

const DOMAIN = 'keel-mrtr-v1';
const VERSION = 1;
const MIN_SECRET_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Default lifetime: long enough for a person to answer a form, short enough to bound replays. */
export const DEFAULT_STATE_TTL_MS = 10 * 60_000;
/** Default size cap of a state, issued or accepted. */
export const DEFAULT_STATE_MAX_BYTES = 64 * 1024;

interface KeyMaterial {
  readonly id: string | undefined;
  readonly bytes: Uint8Array<ArrayBuffer>;
}

interface ImportedKey {
  readonly id: string;
  readonly key: CryptoKey;
}

function secretBytes(secret: RequestStateSecret): Uint8Array<ArrayBuffer> {
  // A copy: a caller reusing its buffer must not change the key under us.
  const bytes =
    typeof secret === 'string'
      ? utf8(secret)
      : secret instanceof Uint8Array
        ? new Uint8Array(secret)
        : secret;
  if (!(bytes instanceof Uint8Array) || bytes.length < MIN_SECRET_BYTES) {
    throw new RangeError(
      `A requestState key must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes instanceof Uint8Array ? bytes.length : typeof secret}); e.g. \`openssl rand -base64 32\``,
    );
  }
  return bytes;
}

function material(keys: readonly RequestStateKey[] | undefined): KeyMaterial[] {
  if (keys === undefined) return [{ id: undefined, bytes: crypto.getRandomValues(new Uint8Array(32)) }];
  if (keys.length === 0) {
    throw new RangeError(
      'requestState keys: give at least one key, or leave `keys` out for a per-process random key',
    );
  }
  const ids = new Set<string>();
  return keys.map((key) => {
    if (typeof key === 'string' || key instanceof Uint8Array)
      return { id: undefined, bytes: secretBytes(key) };
    if (!KEY_ID.test(key.id))
      throw new RangeError(`requestState key id must match ${String(KEY_ID)}: ${key.id}`);
    if (ids.has(key.id)) throw new RangeError(`Duplicate requestState key id: ${key.id}`);
    ids.add(key.id);
    return { id: key.id, bytes: secretBytes(key.secret) };
  });
}

async function importKey({ id, bytes }: KeyMaterial): Promise<ImportedKey> {
  const key = await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  // A derived id reveals 64 bits of a SHA-256 of the key: nothing usable about a 256-bit secret.
  return { id: id ?? `h${(await sha256(`${DOMAIN}.key-id.${toBase64Url(bytes)}`)).slice(0, 11)}`, key };
}

/**
 * Bind a state to a request: the method, the name or URI, a digest of the salient params, and the
 * principal (e.g. the OAuth subject) when there is one.
 *
 * @example
 * const binding = await bindRequest('resources/read', { uri: 'file:///notes.txt' }, undefined);
 */
export async function bindRequest(
  method: string,
  params: JsonObject,
  principal: string | undefined,
): Promise<RequestBinding> {
  const salient: JsonObject = { ...params };
  delete salient._meta;
  delete salient.inputResponses;
  delete salient.requestState;
  const target =
    typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  return {
    method,
    target,
    paramsDigest: await sha256(canonicalJson(salient)),
    principalDigest: principal === undefined ? undefined : await sha256(`${DOMAIN}.principal.${principal}`),
  };
}

function describe(method: string, target: string | undefined): string {
  return target === undefined ? method : `${method} "${target}"`;
}

function malformed(): RequestStateError {
  return new RequestStateError(
    'malformed',
    'requestState is malformed (it must be echoed exactly as the server sent it)',
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Signs and verifies requestState. One per server; safe to share between requests.
 *
 * @example
 * const codec = new RequestStateCodec({ keys: [process.env.KEEL_STATE_KEY!] });
 * const binding = await bindRequest('tools/call', params, undefined);
 * const state = await codec.seal(binding, { round: 1, answers: {}, asked: {} });
 * const content = await codec.open(state, binding); // throws RequestStateError if tampered or expired
 */
export class RequestStateCodec {
  /** True when no keys were given: states verify only in this process. */
  readonly ephemeral: boolean;
  private readonly material: KeyMaterial[];
  private imported: Promise<ImportedKey[]> | undefined;
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(options: RequestStateOptions = {}) {
    this.material = material(options.keys);
    this.ephemeral = options.keys === undefined;
    this.ttlMs = options.ttlMs ?? DEFAULT_STATE_TTL_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_STATE_MAX_BYTES;
    if (!(this.ttlMs > 0)) throw new RangeError(`requestState ttlMs must be > 0, got ${this.ttlMs}`);
    if (!(this.maxBytes > 0)) throw new RangeError(`requestState maxBytes must be > 0, got ${this.maxBytes}`);
    this.now = options.now ?? Date.now;
  }

  private keys(): Promise<ImportedKey[]> {
    this.imported ??= Promise.all(this.material.map(importKey));
    return this.imported;
  }

  /** Sign `content` for the request `binding` describes. Throws `too-large` past `maxBytes`. */
  async seal(binding: RequestBinding, content: RequestStateContent): Promise<string> {
    const [signer] = await this.keys();
    const payload: JsonObject = {
      v: VERSION,
      exp: this.now() + this.ttlMs,
      m: binding.method,
      t: binding.target,
      d: binding.paramsDigest,
      p: binding.principalDigest,
      r: content.round,
      a: content.answers,
      q: content.asked,
    };
    const signed = `${signer!.id}.${toBase64Url(utf8(JSON.stringify(payload)))}`;
    const mac = await crypto.subtle.sign('HMAC', signer!.key, utf8(`${DOMAIN}.${signed}`));
    const token = `${signed}.${toBase64Url(new Uint8Array(mac))}`;
    if (token.length > this.maxBytes) {
      throw new RequestStateError(
        'too-large',
        `The answers so far do not fit in requestState (${token.length} bytes; the limit is ${this.maxBytes})`,
      );
    }
    return token;
  }

  /**
   * Verify `token` (constant-time HMAC check), its expiry and its binding to this request, and
   * return what it carries. Every failure is a {@link RequestStateError} (`-32602`).
   */
  async open(token: unknown, binding: RequestBinding): Promise<RequestStateContent> {
    if (typeof token !== 'string') throw new RequestStateError('malformed', 'requestState must be a string');
    if (token.length > this.maxBytes) {
      throw new RequestStateError(
        'too-large',
        `requestState is too large (${token.length} bytes; the limit is ${this.maxBytes})`,
      );
    }
    const parts = token.split('.');
    if (parts.length !== 3) throw malformed();
    const [kid, body, sig] = parts as [string, string, string];
    const signer = (await this.keys()).find((k) => k.id === kid);
    if (!signer) {
      throw new RequestStateError(
        'unknown-key',
        'requestState was signed with a key this server does not have (rotated out, or issued by another deployment)',
      );
    }
    const mac = fromBase64Url(sig);
    const valid =
      mac !== undefined &&
      (await crypto.subtle.verify('HMAC', signer.key, mac, utf8(`${DOMAIN}.${kid}.${body}`)));
    if (!valid) {
      throw new RequestStateError(
        'signature',
        'requestState failed its integrity check (it was changed, or not issued by this server)',
      );
    }
    const payload = this.parse(body);
    if (payload.exp <= this.now()) {
      throw new RequestStateError(
        'expired',
        `requestState expired at ${new Date(payload.exp).toISOString()}; send the request again without requestState`,
      );
    }
    this.checkBinding(payload, binding);
    return { round: payload.r, answers: payload.a, asked: payload.q };
  }

  private parse(body: string): Payload {
    let value: unknown;
    try {
      value = JSON.parse(fromUtf8(fromBase64Url(body) ?? new Uint8Array([0xff])));
    } catch {
      throw malformed();
    }
    // Signed by this server, so the shape is ours; checked anyway in case a key is shared with an
    // incompatible version.
    if (
      !isRecord(value) ||
      value.v !== VERSION ||
      typeof value.exp !== 'number' ||
      typeof value.m !== 'string' ||
      typeof value.d !== 'string' ||
      !Number.isInteger(value.r) ||
      !isRecord(value.a) ||
      !isRecord(value.q)
    ) {
      throw malformed();
    }
    return value as unknown as Payload;
  }

  private checkBinding(payload: Payload, binding: RequestBinding): void {
    const issuedFor = describe(payload.m, payload.t);
    const presentedOn = describe(binding.method, binding.target);
    if (payload.m !== binding.method || payload.t !== binding.target) {
      throw new RequestStateError('binding', `requestState was issued for ${issuedFor}, not ${presentedOn}`);
    }
    if (payload.d !== binding.paramsDigest) {
      throw new RequestStateError(
        'binding',
        `requestState was issued for ${issuedFor} with other arguments; a retry must repeat the original request's params`,
      );
    }
    if (payload.p !== binding.principalDigest) {
      throw new RequestStateError('binding', `requestState was issued to another principal`);
    }
  }
}

interface Payload {
  v: number;
  exp: number;
  m: string;
  t?: string;
  d: string;
  p?: string;
  r: number;
  a: { [key: string]: StoredAnswer };
  q: { [key: string]: StoredQuestion };
}
