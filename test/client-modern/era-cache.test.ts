/**
 * Review fix (brief SF item 2): the per-process era cache is bounded (least recently used
 * evicted past `MAX_CACHED_ERAS`), so a process given ever new server URLs does not grow without
 * end.
 */
import { afterEach, expect, test } from 'vitest';
import { MAX_CACHED_ERAS, clearEraCache } from 'keel-mcp/client';
import { cachedEra, rememberEra } from '../../src/client/modern/era.js';

afterEach(() => clearEraCache());

const key = (i: number): string => `http://127.0.0.1:1/mcp-${i}`;

test('a few hundred entries at most; the least recently used one goes first', () => {
  expect(MAX_CACHED_ERAS).toBeGreaterThanOrEqual(100);
  expect(MAX_CACHED_ERAS).toBeLessThanOrEqual(1_000);
  for (let i = 0; i < MAX_CACHED_ERAS; i++) rememberEra(key(i), i % 2 === 0 ? 'legacy' : 'modern');
  // Reading entry 0 makes it the most recent: entry 1 is now the oldest.
  expect(cachedEra(key(0))).toBe('legacy');
  rememberEra(key(MAX_CACHED_ERAS), 'modern');
  expect(cachedEra(key(1))).toBeUndefined();
  expect(cachedEra(key(0))).toBe('legacy');
  expect(cachedEra(key(2))).toBe('legacy');
  expect(cachedEra(key(MAX_CACHED_ERAS))).toBe('modern');
});

test('far more servers than the bound: only the last MAX_CACHED_ERAS are kept', () => {
  const total = MAX_CACHED_ERAS * 4;
  for (let i = 0; i < total; i++) rememberEra(key(i), 'modern');
  let kept = 0;
  for (let i = 0; i < total; i++) if (cachedEra(key(i)) !== undefined) kept++;
  expect(kept).toBe(MAX_CACHED_ERAS);
  expect(cachedEra(key(total - 1))).toBe('modern');
  expect(cachedEra(key(total - MAX_CACHED_ERAS - 1))).toBeUndefined();
});

test('forgetting and re-learning a server keeps one entry for it', () => {
  rememberEra(key(1), 'legacy');
  rememberEra(key(1), undefined);
  expect(cachedEra(key(1))).toBeUndefined();
  rememberEra(key(1), 'modern');
  rememberEra(key(1), 'modern');
  for (let i = 2; i <= MAX_CACHED_ERAS; i++) rememberEra(key(i), 'modern');
  // Exactly MAX_CACHED_ERAS distinct keys: none evicted, the re-set one counted once.
  expect(cachedEra(key(1))).toBe('modern');
});
