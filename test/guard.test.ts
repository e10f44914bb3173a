import { expect, test } from 'vitest';
import { leakedResources, waitForNoLeaks } from './helpers/guard.js';

test('the leak check sees a timer left open, and stops seeing it once cleared', async () => {
  const before = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) before.set(name, (before.get(name) ?? 0) + 1);
  const timer = setTimeout(() => undefined, 60_000);
  expect(leakedResources(before).some((name) => name.startsWith('Timeout'))).toBe(true);
  clearTimeout(timer);
  expect(await waitForNoLeaks(before, 200)).toEqual([]);
});
