/**
 * Issue 10: the principal a requestState is bound to, taken from what the host's authentication
 * attached (`ctx.info.authInfo`), and the McpServer's multi round-trip options checked at
 * construction.
 */
import { expect, test } from 'vitest';
import { McpServer } from 'keel-mcp/server';
import { principalOf } from '../../src/server/modern/back-channel.js';

test('principalOf: a stable identity, never the token', () => {
  expect(principalOf(undefined)).toBeUndefined();
  expect(principalOf(null)).toBeUndefined();
  expect(principalOf('')).toBeUndefined();
  expect(principalOf(42)).toBeUndefined();
  expect(principalOf('user-7')).toBe('id:user-7');
  expect(principalOf({ token: 'secret' })).toBeUndefined();
  // subject and sub name the same identity, wherever they are.
  expect(principalOf({ subject: 'alice', clientId: 'app' })).toBe('sub:alice');
  expect(principalOf({ token: 'a', extra: { sub: 'alice' }, clientId: 'app' })).toBe('sub:alice');
  expect(principalOf({ token: 'b', extra: { userId: 'u1' } })).toBe('userId:u1');
  // Only the client application is known: better than nothing.
  expect(principalOf({ token: 'c', clientId: 'app' })).toBe('clientId:app');
  expect(principalOf({ token: 'c', clientId: 'app' })).toBe(principalOf({ token: 'd', clientId: 'app' }));
});

test('maxInputRounds must be a positive integer; bad requestState settings throw at construction', () => {
  const info = { name: 's', version: '1' };
  for (const maxInputRounds of [0, -1, 1.5, Number.NaN]) {
    expect(() => new McpServer(info, { maxInputRounds })).toThrow(RangeError);
  }
  expect(() => new McpServer(info, { requestState: { keys: [] } })).toThrow(/at least one key/);
  expect(() => new McpServer(info, { requestState: { ttlMs: 0 } })).toThrow(RangeError);
  expect(new McpServer(info, { maxInputRounds: 1 })).toBeInstanceOf(McpServer);
});
