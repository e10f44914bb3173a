/**
 * A session's reply header sets are built on first use (memory per idle session): each must carry
 * that session's id and no other's, stay frozen, and be the same object on every reply.
 */
import { expect, test } from 'vitest';
import {
  JSON_HEADERS,
  SSE_HEADERS,
  sessionHeaders,
} from '../../src/transports/http/server-wire/responses.js';

test("each set carries its own session's id, is frozen and built once", () => {
  const one = sessionHeaders('one');
  const two = sessionHeaders('two');
  // Asked for in different orders: a lazily built set must not pick up another's id.
  expect(two.sse).toEqual({ ...SSE_HEADERS, 'mcp-session-id': 'two' });
  expect(one.json).toEqual({ ...JSON_HEADERS, 'mcp-session-id': 'one' });
  expect(one.sse).toEqual({ ...SSE_HEADERS, 'mcp-session-id': 'one' });
  expect(two.json).toEqual({ ...JSON_HEADERS, 'mcp-session-id': 'two' });
  expect(one.bare).toEqual({ 'mcp-session-id': 'one' });
  expect(two.bare).toEqual({ 'mcp-session-id': 'two' });
  for (const sets of [one, two]) {
    for (const set of [sets.json, sets.sse, sets.bare]) expect(Object.isFrozen(set)).toBe(true);
    expect(sets.json).toBe(sets.json);
    expect(sets.sse).toBe(sets.sse);
    expect(sets.bare).toBe(sets.bare);
  }
});

test('without a session id the shared id-less sets are used', () => {
  const none = sessionHeaders(undefined);
  expect(none).toBe(sessionHeaders(undefined));
  expect(none.json).toBe(JSON_HEADERS);
  expect(none.sse).toBe(SSE_HEADERS);
  expect(none.bare).toEqual({});
});
