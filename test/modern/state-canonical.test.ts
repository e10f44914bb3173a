/**
 * A requestState token has one spelling. Base64url leaves low bits of the last character unused
 * (a 32-byte HMAC is 43 characters, the last one carrying 4 bits), so without a canonical check a
 * token with those bits changed decoded to the same MAC and verified: "changing any single
 * character is refused" (request-state.test.ts) failed for ~3% of the states it drew.
 */
import { expect, test } from 'vitest';
import { RequestStateError } from 'keel-mcp/server';
import { bindRequest, RequestStateCodec } from '../../src/server/modern/request-state.js';
import { fromBase64Url, toBase64Url } from '../../src/server/modern/state-encoding.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CALL = { name: 'greet', arguments: { who: 'Ada' } };

/** The same string with the lowest bit of its last character flipped (an unused bit here). */
function flipLastBit(text: string): string {
  const last = ALPHABET.indexOf(text.at(-1)!);
  return text.slice(0, -1) + ALPHABET[last ^ 1]!;
}

test('fromBase64Url accepts only the canonical spelling', () => {
  expect(fromBase64Url('QQ')).toEqual(new Uint8Array([0x41]));
  expect(fromBase64Url('QR')).toBeUndefined(); // the same byte, with an unused bit set
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const text = toBase64Url(bytes);
  expect(fromBase64Url(text)).toEqual(bytes);
  expect(fromBase64Url(flipLastBit(text))).toBeUndefined();
});

test('a token whose MAC differs only in unused bits is refused (every time, not by luck)', async () => {
  const codec = new RequestStateCodec({ keys: ['k'.repeat(32)] });
  const binding = await bindRequest('tools/call', CALL, undefined);
  for (let i = 0; i < 8; i++) {
    const token = await codec.seal(binding, { round: i + 1, answers: {}, asked: {} });
    const error = await codec.open(flipLastBit(token), binding).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RequestStateError);
    expect((error as RequestStateError).reason).toBe('signature');
  }
});
