/**
 * Issue 10: the signed requestState. Attacker-controlled input: every changed byte, a foreign or
 * retired key, an expired state, or a state presented on another request or by another principal
 * is refused with -32602 (what the conformance suite's sep-2322-reject-tampered-state expects).
 */
import { describe, expect, test } from 'vitest';
import { ErrorCode } from 'keel-mcp/core';
import { toWireError } from '../../src/core/errors.js';
import { RequestStateError } from 'keel-mcp/server';
import {
  bindRequest,
  RequestStateCodec,
  type RequestStateContent,
} from '../../src/server/modern/request-state.js';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const CALL = { name: 'greet', arguments: { who: 'Ada', times: 2 } };
const CONTENT: RequestStateContent = {
  round: 1,
  answers: {
    user_name: { m: 'elicitation/create', q: 'x1', r: { action: 'accept', content: { name: 'Ada' } } },
  },
  asked: { confirm: { m: 'elicitation/create', q: 'y2' } },
};

async function sealed(codec: RequestStateCodec, params: object = CALL, principal?: string): Promise<string> {
  return codec.seal(await bindRequest('tools/call', { ...params }, principal), CONTENT);
}

async function refusal(promise: Promise<unknown>): Promise<RequestStateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestStateError);
  expect((error as RequestStateError).code).toBe(ErrorCode.InvalidParams);
  return error as RequestStateError;
}

describe('requestState codec', () => {
  test('round trip: what was sealed for a request opens on its retry', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const state = await sealed(codec);
    expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    // The retry carries _meta, inputResponses and the state itself: none of them is bound.
    const retry = { ...CALL, _meta: { progressToken: 7 }, inputResponses: { a: {} }, requestState: state };
    expect(await codec.open(state, await bindRequest('tools/call', retry, undefined))).toEqual(CONTENT);
  });

  test('argument key order does not matter (canonical JSON)', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const state = await sealed(codec);
    const reordered = { arguments: { times: 2, who: 'Ada' }, name: 'greet' };
    expect(await codec.open(state, await bindRequest('tools/call', reordered, undefined))).toEqual(CONTENT);
  });

  test('changing any single character is refused', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const state = await sealed(codec);
    const binding = await bindRequest('tools/call', CALL, undefined);
    for (let i = 0; i < state.length; i++) {
      const swapped = state[i] === 'A' ? 'B' : 'A';
      const tampered = state.slice(0, i) + swapped + state.slice(i + 1);
      const error = await refusal(codec.open(tampered, binding));
      expect(['signature', 'unknown-key', 'malformed']).toContain(error.reason);
    }
  });

  test('the conformance tamper (a suffix) is an integrity failure with -32602 on the wire', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const binding = await bindRequest('tools/call', CALL, undefined);
    const error = await refusal(codec.open(`${await sealed(codec)}-TAMPERED`, binding));
    expect(error.reason).toBe('signature');
    expect(toWireError(error)).toEqual({
      code: -32602,
      message: 'requestState failed its integrity check (it was changed, or not issued by this server)',
      data: { reason: 'signature' },
    });
  });

  test('a state signed with another key is refused, under the same key id too', async () => {
    const binding = await bindRequest('tools/call', CALL, undefined);
    const other = await sealed(new RequestStateCodec({ keys: [KEY_B] }));
    expect((await refusal(new RequestStateCodec({ keys: [KEY_A] }).open(other, binding))).reason).toBe(
      'unknown-key',
    );
    const sameId = await sealed(new RequestStateCodec({ keys: [{ id: 'k1', secret: KEY_B }] }));
    const mine = new RequestStateCodec({ keys: [{ id: 'k1', secret: KEY_A }] });
    expect((await refusal(mine.open(sameId, binding))).reason).toBe('signature');
  });

  test('rotation: the first key signs, every key verifies; a retired key no longer does', async () => {
    const binding = await bindRequest('tools/call', CALL, undefined);
    const old = new RequestStateCodec({ keys: [KEY_A] });
    const rotated = new RequestStateCodec({ keys: [KEY_B, KEY_A] });
    const retired = new RequestStateCodec({ keys: [KEY_B] });
    const fromOld = await sealed(old);
    expect(await rotated.open(fromOld, binding)).toEqual(CONTENT);
    const fromRotated = await sealed(rotated);
    expect(await retired.open(fromRotated, binding)).toEqual(CONTENT);
    expect((await refusal(retired.open(fromOld, binding))).reason).toBe('unknown-key');
    // Uint8Array keys work the same.
    const bytes = new Uint8Array(32).fill(7);
    const byBytes = new RequestStateCodec({ keys: [bytes] });
    expect(await byBytes.open(await sealed(byBytes), binding)).toEqual(CONTENT);
  });

  test('without keys: a random per-process key, so another process cannot open the state', async () => {
    const binding = await bindRequest('tools/call', CALL, undefined);
    const one = new RequestStateCodec();
    const two = new RequestStateCodec();
    expect(one.ephemeral).toBe(true);
    expect(new RequestStateCodec({ keys: [KEY_A] }).ephemeral).toBe(false);
    const state = await sealed(one);
    expect(await one.open(state, binding)).toEqual(CONTENT);
    expect((await refusal(two.open(state, binding))).reason).toBe('unknown-key');
  });

  test('without keys: the random key is drawn once, on first use, even by concurrent first uses', async () => {
    // Issue 14 drew the key lazily (start-up cost); two first uses racing must still share one key.
    const binding = await bindRequest('tools/call', CALL, undefined);
    const codec = new RequestStateCodec();
    const [a, b] = await Promise.all([sealed(codec), sealed(codec)]);
    expect(await codec.open(a, binding)).toEqual(CONTENT);
    expect(await codec.open(b, binding)).toEqual(CONTENT);
    // A codec whose first use is open draws its own key: another codec's state is refused.
    expect((await refusal(new RequestStateCodec().open(a, binding))).reason).toBe('unknown-key');
  });

  test('expiry: valid until ttlMs after it was issued, refused from then on', async () => {
    let now = 1_000_000;
    const codec = new RequestStateCodec({ keys: [KEY_A], ttlMs: 5_000, now: () => now });
    const binding = await bindRequest('tools/call', CALL, undefined);
    const state = await sealed(codec);
    now += 4_999;
    expect(await codec.open(state, binding)).toEqual(CONTENT);
    now += 1;
    const error = await refusal(codec.open(state, binding));
    expect(error.reason).toBe('expired');
    expect(error.message).toContain(new Date(1_005_000).toISOString());
  });

  test('binding: another tool, other arguments, another method, another principal are refused', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const state = await sealed(codec, CALL, 'alice');
    const cases: [string, object, string | undefined, RegExp][] = [
      [
        'tools/call',
        { ...CALL, name: 'other' },
        'alice',
        /issued for tools\/call "greet", not tools\/call "other"/,
      ],
      ['tools/call', { ...CALL, arguments: { who: 'Bob', times: 2 } }, 'alice', /other arguments/],
      ['tools/call', { name: 'greet' }, 'alice', /other arguments/],
      ['prompts/get', CALL, 'alice', /issued for tools\/call "greet", not prompts\/get "greet"/],
      ['tools/call', CALL, 'mallory', /another principal/],
      ['tools/call', CALL, undefined, /another principal/],
    ];
    for (const [method, params, principal, message] of cases) {
      const error = await refusal(codec.open(state, await bindRequest(method, { ...params }, principal)));
      expect(error.reason).toBe('binding');
      expect(error.message).toMatch(message);
    }
    expect(await codec.open(state, await bindRequest('tools/call', CALL, 'alice'))).toEqual(CONTENT);
  });

  test('resources/read binds the URI', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const binding = await bindRequest('resources/read', { uri: 'file:///a' }, undefined);
    const state = await codec.seal(binding, CONTENT);
    const other = await bindRequest('resources/read', { uri: 'file:///b' }, undefined);
    expect((await refusal(codec.open(state, other))).message).toMatch(
      /"file:\/\/\/a", not resources\/read "file:\/\/\/b"/,
    );
  });

  test('size cap: an oversized state is refused before any crypto; answers too large to carry are refused', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A], maxBytes: 1024 });
    const binding = await bindRequest('tools/call', CALL, undefined);
    const huge = 'A'.repeat(1025);
    expect((await refusal(codec.open(huge, binding))).reason).toBe('too-large');
    const big: RequestStateContent = {
      round: 1,
      answers: { essay: { m: 'sampling/createMessage', q: 'q', r: { text: 'x'.repeat(2000) } } },
      asked: {},
    };
    const error = await refusal(codec.seal(binding, big));
    expect(error.reason).toBe('too-large');
    expect(error.message).toMatch(/the limit is 1024/);
  });

  test('malformed states: not a string, wrong number of parts, not base64url', async () => {
    const codec = new RequestStateCodec({ keys: [{ id: 'k1', secret: KEY_A }] });
    const binding = await bindRequest('tools/call', CALL, undefined);
    for (const bad of [42, null, { a: 1 }]) {
      expect((await refusal(codec.open(bad, binding))).reason).toBe('malformed');
    }
    expect((await refusal(codec.open('k1.abc', binding))).reason).toBe('malformed');
    expect((await refusal(codec.open('k1.a.b.c', binding))).reason).toBe('malformed');
    expect((await refusal(codec.open('k1.abc.d+f=', binding))).reason).toBe('signature');
  });

  test('key configuration mistakes fail at construction', () => {
    expect(() => new RequestStateCodec({ keys: ['short'] })).toThrow(/at least 32 bytes/);
    expect(() => new RequestStateCodec({ keys: [new Uint8Array(31)] })).toThrow(/at least 32 bytes/);
    expect(() => new RequestStateCodec({ keys: [] })).toThrow(/at least one key/);
    expect(
      () =>
        new RequestStateCodec({
          keys: [
            { id: 'k', secret: KEY_A },
            { id: 'k', secret: KEY_B },
          ],
        }),
    ).toThrow(/Duplicate/);
    expect(() => new RequestStateCodec({ keys: [{ id: 'no.dots', secret: KEY_A }] })).toThrow(/key id/);
    expect(() => new RequestStateCodec({ ttlMs: 0 })).toThrow(/ttlMs/);
  });
});
