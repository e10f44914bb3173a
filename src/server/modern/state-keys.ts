/**
 * requestState key material: the secrets a server signs with (at least 32 bytes each), their ids
 * (given, or derived from a hash of the secret), and their import as WebCrypto HMAC keys.
 */
import { sha256, toBase64Url, utf8 } from './state-encoding.js';

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

/** Prefix of everything hashed or signed for requestState: no other use of a key can collide. */
export const STATE_DOMAIN = 'keel-mrtr-v1';
const MIN_SECRET_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** @internal A key before import: its id (undefined: derived at import) and its bytes. */
export interface KeyMaterial {
  readonly id: string | undefined;
  readonly bytes: Uint8Array<ArrayBuffer>;
}

/** @internal A key ready to sign and verify. */
export interface ImportedKey {
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

/**
 * @internal Check the configured keys (sizes, ids, duplicates); none configured: one random key.
 *
 * @example
 * const material = keyMaterial([{ id: 'k1', secret: 'x'.repeat(32) }]);
 */
export function keyMaterial(keys: readonly RequestStateKey[] | undefined): KeyMaterial[] {
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

/**
 * @internal Import one key as an HMAC-SHA-256 WebCrypto key, deriving its id when it has none.
 *
 * @example
 * const [signer] = await Promise.all(keyMaterial(keys).map(importKey));
 */
export async function importKey({ id, bytes }: KeyMaterial): Promise<ImportedKey> {
  const key = await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  // A derived id reveals 64 bits of a SHA-256 of the key: nothing usable about a 256-bit secret.
  return { id: id ?? `h${(await sha256(`${STATE_DOMAIN}.key-id.${toBase64Url(bytes)}`)).slice(0, 11)}`, key };
}
