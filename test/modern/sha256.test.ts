/**
 * The JavaScript SHA-256 behind requestState bindings (brief PF: WebCrypto's asynchronous digest
 * cost more CPU than the hashing): FIPS 180-4 test vectors, agreement with `crypto.subtle.digest`
 * around every padding boundary and on random inputs, and `sha256()` giving the same base64url
 * digest on both sides of the inline limit.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { sha256Bytes } from '../../src/server/modern/sha256.js';
import { INLINE_SHA256_MAX_BYTES, sha256, toBase64Url } from '../../src/server/modern/state-encoding.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const text = (value: string): Uint8Array => new TextEncoder().encode(value);

async function webDigest(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes)));
}

/** A deterministic byte stream (xorshift32), so a failure is reproducible. */
function bytesOf(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

test('FIPS 180-4 / NIST test vectors', () => {
  expect(hex(sha256Bytes(text('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  expect(hex(sha256Bytes(text('abc')))).toBe(
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  );
  expect(hex(sha256Bytes(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
  expect(hex(sha256Bytes(new Uint8Array(1_000_000).fill(0x61)))).toBe(
    'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
  );
});

test('agrees with WebCrypto for every length around the padding boundaries', async () => {
  for (let length = 0; length <= 200; length++) {
    const data = bytesOf(length, length + 7);
    expect(hex(sha256Bytes(data)), `length ${length}`).toBe(hex(await webDigest(data)));
  }
});

test('agrees with WebCrypto on larger random inputs', async () => {
  for (const length of [1_000, 4_095, 4_096, 65_537]) {
    const data = bytesOf(length, length);
    expect(hex(sha256Bytes(data)), `length ${length}`).toBe(hex(await webDigest(data)));
  }
});

test('sha256() is the same base64url digest below and above the inline limit', async () => {
  for (const length of [0, 100, INLINE_SHA256_MAX_BYTES, INLINE_SHA256_MAX_BYTES + 1]) {
    const value = 'é'.repeat(Math.floor(length / 2)) + 'x'.repeat(length % 2);
    expect(await sha256(value), `length ${length}`).toBe(toBase64Url(await webDigest(text(value))));
  }
});

test('a small input is hashed inline, without a WebCrypto job; a large one still uses WebCrypto', async () => {
  const digest = vi.spyOn(crypto.subtle, 'digest');
  await sha256('{"arguments":{"prompt":"p"},"name":"wait_sampling"}');
  expect(digest).toHaveBeenCalledTimes(0);
  await sha256('x'.repeat(INLINE_SHA256_MAX_BYTES + 1));
  expect(digest).toHaveBeenCalledTimes(1);
});

test('toBase64Url: the unpadded base64url of btoa, for every length 0-300 and a large input', () => {
  const reference = (bytes: Uint8Array): string =>
    btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  for (let length = 0; length <= 300; length++) {
    const data = bytesOf(length, length + 11);
    expect(toBase64Url(data), `length ${length}`).toBe(reference(data));
  }
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  expect(toBase64Url(all)).toBe(reference(all));
  const large = bytesOf(70_001, 3);
  expect(toBase64Url(large)).toBe(reference(large));
});
