/**
 * requestState's base64url encoding (written directly, not through `btoa` and three replaces: a
 * measurable share of an input_required round trip) gives exactly the unpadded base64url of `btoa`.
 */
import { expect, test } from 'vitest';
import { toBase64Url } from '../../src/server/modern/state-encoding.js';

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
