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
 *
 * This file is the codec (seal, open); keys are in state-keys.ts, the binding in state-binding.ts,
 * the payload's shape in state-payload.ts.
 */
import { RequestStateError } from './mrtr-errors.js';
import { checkBinding, type RequestBinding } from './state-binding.js';
import { fromBase64Url, toBase64Url, utf8 } from './state-encoding.js';
import {
  importKey,
  keyMaterial,
  STATE_DOMAIN,
  type ImportedKey,
  type KeyMaterial,
  type RequestStateKey,
} from './state-keys.js';
import {
  malformedState,
  parsePayload,
  PAYLOAD_VERSION,
  type Payload,
  type RequestStateContent,
} from './state-payload.js';

// The pieces live in their own files; importers keep one entry point.
export { bindRequest, type RequestBinding } from './state-binding.js';
export type { RequestStateKey, RequestStateSecret } from './state-keys.js';
export type { RequestStateContent, StoredAnswer, StoredQuestion } from './state-payload.js';

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

/** Default lifetime: long enough for a person to answer a form, short enough to bound replays. */
export const DEFAULT_STATE_TTL_MS = 10 * 60_000;
/** Default size cap of a state, issued or accepted. */
export const DEFAULT_STATE_MAX_BYTES = 64 * 1024;

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
  // Undefined: no keys given; the random key is drawn on first use, because touching `crypto`
  // loads Node's WebCrypto internals, which a server should not pay for at start when it may
  // never run a 2026-07-28 input round.
  private readonly material: KeyMaterial[] | undefined;
  private imported: Promise<ImportedKey[]> | undefined;
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(options: RequestStateOptions = {}) {
    // Configured keys are still checked here, so a bad key fails at construction.
    this.material = options.keys === undefined ? undefined : keyMaterial(options.keys);
    this.ephemeral = options.keys === undefined;
    this.ttlMs = options.ttlMs ?? DEFAULT_STATE_TTL_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_STATE_MAX_BYTES;
    if (!(this.ttlMs > 0)) throw new RangeError(`requestState ttlMs must be > 0, got ${this.ttlMs}`);
    if (!(this.maxBytes > 0)) throw new RangeError(`requestState maxBytes must be > 0, got ${this.maxBytes}`);
    this.now = options.now ?? Date.now;
  }

  private keys(): Promise<ImportedKey[]> {
    // Memoized: one random key per codec for its whole life, as before.
    this.imported ??= Promise.all((this.material ?? keyMaterial(undefined)).map(importKey));
    return this.imported;
  }

  /** Sign `content` for the request `binding` describes. Throws `too-large` past `maxBytes`. */
  async seal(binding: RequestBinding, content: RequestStateContent): Promise<string> {
    const [signer] = await this.keys();
    const payload: Payload = {
      v: PAYLOAD_VERSION,
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
    const mac = await crypto.subtle.sign('HMAC', signer!.key, utf8(`${STATE_DOMAIN}.${signed}`));
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
    if (parts.length !== 3) throw malformedState();
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
      (await crypto.subtle.verify('HMAC', signer.key, mac, utf8(`${STATE_DOMAIN}.${kid}.${body}`)));
    if (!valid) {
      throw new RequestStateError(
        'signature',
        'requestState failed its integrity check (it was changed, or not issued by this server)',
      );
    }
    const payload = parsePayload(body);
    if (payload.exp <= this.now()) {
      throw new RequestStateError(
        'expired',
        `requestState expired at ${new Date(payload.exp).toISOString()}; send the request again without requestState`,
      );
    }
    checkBinding(payload, binding);
    return { round: payload.r, answers: payload.a, asked: payload.q };
  }
}
