import { expect, test } from 'vitest';
import { leakedResources, TimerTracker, waitForNoLeaks } from './helpers/guard.js';

test('the leak check sees a timer left open, and stops seeing it once cleared', async () => {
  const before = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) before.set(name, (before.get(name) ?? 0) + 1);
  const timer = setTimeout(() => undefined, 60_000);
  expect(leakedResources(before).some((name) => name.startsWith('Timeout'))).toBe(true);
  clearTimeout(timer);
  expect(await waitForNoLeaks(before, 200)).toEqual([]);
});

test("the leak check sees an unref'd timer (invisible to getActiveResourcesInfo), and stops once cleared", async () => {
  const before = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) before.set(name, (before.get(name) ?? 0) + 1);
  const tracker = new TimerTracker();
  tracker.start();
  const timer = setTimeout(() => undefined, 60_000).unref();
  tracker.stop();
  // What the guard used to rely on alone does not see it.
  expect(leakedResources(before)).toEqual([]);
  expect(await waitForNoLeaks(before, 50, tracker)).toEqual(["unref'd Timeout (60000 ms)"]);
  clearTimeout(timer);
  expect(await waitForNoLeaks(before, 200, tracker)).toEqual([]);
});

test('the tracker forgets timers that fired', async () => {
  const tracker = new TimerTracker();
  tracker.start();
  await new Promise<void>((resolve) => setTimeout(resolve, 1).unref());
  tracker.stop();
  expect(tracker.unrefLeft()).toEqual([]);
});
