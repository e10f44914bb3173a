/**
 * Issue 28 item 4: the soak test's judgement can fail. The slope fit and its bounds on made-up
 * samples (flat with noise passes, a steady leak fails), the warm-up left out, and the call tally
 * (a lost, hung, duplicated or wrong call each counted and reported).
 */
import { expect, test } from 'vitest';
// @ts-expect-error plain ES module of the soak script, no types
import { BOUNDS, CallTally, memoryVerdict, slope, warmupCount } from '../../scripts/soak/verdict.mjs';

const MB = 1_048_576;
type Sample = { t: number; heapUsed: number; rss: number };

/** `count` samples `everyMs` apart: heap and RSS from `heapAt`/`rssAt` (MB at minute m). */
function samples(
  count: number,
  everyMs: number,
  heapAt: (m: number) => number,
  rssAt = (m: number) => 80 + heapAt(m),
): Sample[] {
  return Array.from({ length: count }, (_, i) => {
    const minute = (i * everyMs) / 60_000;
    return { t: i * everyMs, heapUsed: heapAt(minute) * MB, rss: rssAt(minute) * MB };
  });
}

test('issue 28 soak: slope is the least-squares fit', () => {
  expect(slope([0, 1, 2, 3], [1, 3, 5, 7])).toBeCloseTo(2);
  expect(slope([0, 1, 2], [5, 5, 5])).toBe(0);
  expect(slope([1], [1])).toBe(0);
});

test('issue 28 soak: flat memory with noise passes an hour; a leak of 1 MB per minute fails it', () => {
  const noise = (m: number) => Math.sin(m * 7) * 2; // ±2 MB of GC and allocator noise
  const flat = memoryVerdict(
    samples(121, 30_000, (m) => 20 + noise(m)),
    30_000,
  );
  expect(flat.judged).toBe(true);
  expect(flat.failures).toEqual([]);
  const leaking = memoryVerdict(
    samples(121, 30_000, (m) => 20 + m + noise(m)),
    30_000,
  );
  expect(leaking.failures.join('\n')).toMatch(/heap grows 6\d\.\d MB\/h/);
  expect(leaking.heapGrowth).toBeGreaterThan(BOUNDS.heapMB);
});

test('issue 28 soak: the warm-up climb is not judged; too few samples are not judged at all', () => {
  // Climbs 30 MB in its first 5 minutes (the longest warm-up left out), then flat: passes.
  const climb = (m: number) => (m < 5 ? 20 + 6 * m : 50);
  expect(warmupCount(new Array(121), 30_000)).toBe(10); // at most 5 minutes
  const long = memoryVerdict(
    samples(121, 30_000, climb, (m) => 100 + climb(m)),
    30_000,
  );
  expect(long.failures).toEqual([]);
  expect(
    memoryVerdict(
      samples(3, 30_000, () => 20),
      30_000,
    ).judged,
  ).toBe(false);
});

test('issue 28 soak: the tally counts ok, expected errors, wrong, hung, duplicated and lost calls', async () => {
  const tally = new CallTally(50);
  const ok = (outcome: { value?: unknown }) => (outcome.value === 'yes' ? 'ok' : 'wrong answer');
  await tally.track('a', Promise.resolve('yes'), ok);
  await tally.track('a', Promise.resolve('no'), ok);
  await tally.track('b', Promise.reject(new Error('cancelled')), () => 'expectedError');
  await tally.track('c', new Promise((resolve) => setTimeout(resolve, 80, 'yes')), ok);
  void tally.track('d', new Promise(() => {}), ok);
  tally.duplicate('e', 'a second answer');
  const { totals, problems } = tally.finish();
  expect(totals).toMatchObject({
    started: 5,
    ok: 1,
    expectedError: 1,
    wrong: 1,
    hung: 1,
    duplicated: 1,
    lost: 1,
  });
  expect(problems.join('\n')).toMatch(/a: wrong answer/);
  expect(problems.join('\n')).toMatch(/c: settled after \d+ ms \(bound 50 ms\)/);
  expect(problems.join('\n')).toMatch(/d: never settled/);
});
