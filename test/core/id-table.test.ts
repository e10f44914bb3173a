/**
 * IdTable (the in-flight and pending tables' storage) behaves as a Map by id, whatever the ids:
 * counting up (the ring), stragglers that outlive a ring's worth of newer ids, strings, negative,
 * fractional and huge numbers (the side map), and thousands live at once (the ring grows).
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { IdTable } from '../../src/core/engine/id-table.js';
import type { RequestId } from 'keel-mcp/core';

interface Entry {
  readonly id: RequestId;
  readonly tag: number;
}

type Op = { kind: 'set'; id: RequestId } | { kind: 'delete'; id: RequestId } | { kind: 'next' };

const odd = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer({ min: -5, max: 5000 }),
  fc.constantFrom(-1, 0.5, 2 ** 31, 2 ** 31 - 1, 2 ** 40, Number.MAX_SAFE_INTEGER),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'next' as const }) },
  { weight: 2, arbitrary: odd.map((id) => ({ kind: 'set' as const, id })) },
  { weight: 5, arbitrary: odd.map((id) => ({ kind: 'delete' as const, id })) },
);

function check(table: IdTable<Entry>, model: Map<RequestId, Entry>): void {
  expect(table.size).toBe(model.size);
  const values = table.values();
  expect(values.length).toBe(model.size);
  for (const entry of values) expect(model.get(entry.id)).toBe(entry);
}

test('agrees with a Map on random operations', () => {
  fc.assert(
    fc.property(
      fc.array(op, { maxLength: 400 }),
      fc.integer({ min: 0, max: 2 ** 31 - 600 }),
      (ops, start) => {
        const table = new IdTable<Entry>();
        const model = new Map<RequestId, Entry>();
        let next = start;
        let tag = 0;
        const live: RequestId[] = [];
        for (const o of ops) {
          if (o.kind === 'delete') {
            // Half the deletes hit a live id (the oldest), as answers do.
            const id = tag % 2 === 0 && live.length > 0 ? (live.shift() as RequestId) : o.id;
            expect(table.delete(id)).toBe(model.get(id));
            model.delete(id);
          } else {
            const id = o.kind === 'next' ? next++ : o.id;
            const entry = { id, tag: tag++ };
            table.set(entry);
            model.set(id, entry);
            live.push(id);
          }
          for (const id of [o.kind === 'next' ? next - 1 : o.id, live[0] ?? -1]) {
            expect(table.get(id)).toBe(model.get(id));
          }
        }
        check(table, model);
        table.clear();
        expect(table.size).toBe(0);
        expect(table.values()).toEqual([]);
      },
    ),
    { numRuns: 300 },
  );
});

test('a straggler stays findable while thousands of newer ids pass through its slot', () => {
  const table = new IdTable<Entry>();
  const straggler = { id: 3, tag: -1 };
  table.set(straggler);
  for (let id = 4; id < 20_000; id++) {
    table.set({ id, tag: id });
    expect(table.delete(id)?.id).toBe(id);
  }
  expect(table.get(3)).toBe(straggler);
  expect(table.size).toBe(1);
  expect(table.delete(3)).toBe(straggler);
  expect(table.size).toBe(0);
});

test('thousands live at once: all found, all removed', () => {
  const table = new IdTable<Entry>();
  for (let id = 0; id < 10_000; id++) table.set({ id, tag: id });
  expect(table.size).toBe(10_000);
  for (let id = 0; id < 10_000; id++) expect(table.get(id)?.tag).toBe(id);
  for (let id = 9_999; id >= 0; id--) expect(table.delete(id)?.tag).toBe(id);
  expect(table.size).toBe(0);
});
