/**
 * The in-flight table keeps its only entry without a Map (memory per idle HTTP session) and makes
 * the Map when a second comes: lookups, identity-guarded removal and snapshots must read the same
 * on either side of that switch, ids `0` and `""` included (guarantees 1 and 4).
 */
import { expect, test } from 'vitest';
import { InflightRequest } from '../../src/core/engine/inbound.js';
import { InflightTable } from '../../src/core/engine/inflight-table.js';

const entry = (id: string | number, relatedOutbound?: number) =>
  new InflightRequest(id, 'tools/call', undefined, relatedOutbound);

test('a single entry is found by its id only, ids 0 and "" included, and leaves an empty table', () => {
  for (const [id, other] of [
    [0, ''],
    ['', 0],
    [7, '7'],
  ] as const) {
    const table = new InflightTable();
    const only = entry(id);
    table.add(only);
    expect(table.size).toBe(1);
    expect(table.has(id)).toBe(true);
    expect(table.has(other)).toBe(false);
    expect(table.peek(other)).toBeUndefined();
    expect(table.take(other)).toBeUndefined();
    expect(table.take(id)).toBe(only);
    expect(table.size).toBe(0);
    expect(table.has(id)).toBe(false);
    expect(table.takeAll()).toEqual([]);
  }
});

test('removing a finished entry never evicts a newer one with the same id, before and after the Map', () => {
  const table = new InflightTable();
  const first = entry(1);
  table.add(first);
  expect(table.take(1)).toBe(first);
  const reused = entry(1);
  table.add(reused);
  table.remove(first);
  expect(table.peek(1)).toBe(reused);

  // A second entry moves both into the Map; the guard holds there too.
  const second = entry(2);
  table.add(second);
  expect(table.size).toBe(2);
  table.remove(first);
  expect(table.peek(1)).toBe(reused);
  expect(table.peek(2)).toBe(second);
  table.remove(reused);
  expect(table.size).toBe(1);
  expect(table.has(1)).toBe(false);
  expect(table.takeAll()).toEqual([second]);
  expect(table.size).toBe(0);
  // Empty again: a new single entry is found as before.
  const third = entry(3);
  table.add(third);
  expect(table.peek(3)).toBe(third);
  expect(table.takeAll()).toEqual([third]);
});

test('entries sent for one of our requests are taken as a group, from the single slot or the Map', () => {
  const table = new InflightTable();
  const nested = entry('a', 5);
  table.add(nested);
  expect(table.takeRelated(6)).toEqual([]);
  expect(table.takeRelated(5)).toEqual([nested]);
  expect(table.size).toBe(0);

  const a = entry('a', 5);
  const b = entry('b');
  const c = entry('c', 5);
  table.add(a);
  table.add(b);
  table.add(c);
  expect(table.takeRelated(5)).toEqual([a, c]);
  expect(table.size).toBe(1);
  expect(table.peek('b')).toBe(b);
  expect(table.takeRelated(5)).toEqual([]);
});
