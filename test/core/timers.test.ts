/** src/core/timers.ts and src/core/base64.ts: the shared bounded wait, unref'd timers, base64. */
import { expect, test } from 'vitest';
import { fromBase64, toBase64 } from '../../src/core/base64.js';
import { unrefTimer, within } from '../../src/core/timers.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

test('within: true when the work settles first (either way), its timer cleared', async () => {
  expect(await within(Promise.resolve(1), 60_000)).toBe(true);
  expect(await within(Promise.reject(new Error('x')), 60_000)).toBe(true);
  // The guard fails the test if a 60 s timer were left behind.
});

test('within: false when the work never settles', async () => {
  expect(await within(new Promise(() => {}), 1)).toBe(false);
});

test('unrefTimer: the timer no longer keeps the process alive', () => {
  const timer = unrefTimer(setTimeout(() => {}, 60_000));
  expect(timer.hasRef()).toBe(false);
  clearTimeout(timer);
});

test('base64 round trip of every byte value and a chunk-crossing length; junk is undefined', () => {
  const bytes = new Uint8Array(0x8000 + 3).map((_, i) => i % 256);
  expect(toBase64(new Uint8Array([0xff, 0x00]))).toBe('/wA=');
  expect(fromBase64(toBase64(bytes))).toEqual(bytes);
  expect(fromBase64('not base64!')).toBeUndefined();
});
