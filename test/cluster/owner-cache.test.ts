/** Issue 12 review: the session → owner cache is least-recently-used, not insertion order. */
import { expect, test } from 'vitest';
import { OwnerCache } from '../../src/hosts/http/cluster/owner-cache.js';

test('a hit keeps the entry: the least recently used one is evicted', () => {
  const cache = new OwnerCache(2);
  cache.set('s1', 'a');
  cache.set('s2', 'b');
  expect(cache.get('s1')).toBe('a'); // s1 is now the most recent
  cache.set('s3', 'c');
  expect(cache.get('s1')).toBe('a');
  expect(cache.get('s2')).toBeUndefined();
  expect(cache.get('s3')).toBe('c');
  expect(cache.size).toBe(2);
});

test('set on a known key replaces it without evicting another; delete forgets', () => {
  const cache = new OwnerCache(2);
  cache.set('s1', 'a');
  cache.set('s2', 'b');
  cache.set('s1', 'c');
  expect(cache.get('s2')).toBe('b');
  expect(cache.get('s1')).toBe('c');
  cache.delete('s1');
  expect(cache.get('s1')).toBeUndefined();
});
