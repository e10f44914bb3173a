/** Reading the Bearer challenge of a WWW-Authenticate header: the three parameters grants use. */
import { expect, test } from 'vitest';
import { parseBearerChallenge, unionScopes } from '../../src/client/auth/machine/bearer-challenge.js';

test('reads error, scope and resource_metadata, quoted or not', () => {
  expect(
    parseBearerChallenge(
      'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"',
    ),
  ).toEqual({
    error: 'insufficient_scope',
    scope: 'a b',
    resourceMetadata: 'https://x.example/.well-known/oauth-protected-resource/mcp',
  });
  expect(parseBearerChallenge('bearer error=invalid_token')).toEqual({ error: 'invalid_token' });
});

test('finds the Bearer challenge after another scheme and stops at the next one', () => {
  expect(parseBearerChallenge('Basic realm="x", Bearer scope="s1", DPoP algs="ES256"')).toEqual({
    scope: 's1',
  });
});

test('unescapes quoted-pairs', () => {
  expect(parseBearerChallenge('Bearer scope="a\\"b"')).toEqual({ scope: 'a"b' });
});

test('no Bearer challenge, garbage or a huge header read as empty, without throwing', () => {
  expect(parseBearerChallenge(undefined)).toEqual({});
  expect(parseBearerChallenge('Basic realm="x"')).toEqual({});
  expect(parseBearerChallenge('Bearer ===,,,"')).toEqual({});
  expect(parseBearerChallenge(`Bearer scope="${'a'.repeat(10_000)}"`)).toEqual({});
});

test('unionScopes keeps first-seen order without duplicates', () => {
  expect(unionScopes('a b', undefined, 'b c')).toBe('a b c');
  expect(unionScopes(undefined, '')).toBeUndefined();
});
