/**
 * Issue 24 point 6: the one reading of a capped response that both `boundedFetch`s (OAuth client,
 * token verifiers) use: a body within the cap is held in memory with status, status text and
 * headers kept; past the cap (declared or streamed) nothing more is read and `beforeCancel` runs
 * before the body is cancelled; a response without a body comes back as it is.
 */
import { expect, test } from 'vitest';
import { readCappedResponse } from '../../src/core/read-capped.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

/** A body of `chunks` pieces of `size` bytes that records how many were pulled and whether it was cancelled. */
function counted(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === chunks) return controller.close();
      seen.pulled += 1;
      controller.enqueue(new Uint8Array(size).fill(120));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

test('within the cap: the body is read whole; status, status text and headers are kept', async () => {
  const { body, seen } = counted(3, 10);
  const original = new Response(body, { status: 201, statusText: 'Made', headers: { 'x-a': '1' } });
  const buffered = await readCappedResponse(original, 30);
  expect(buffered).not.toBe(original);
  expect([buffered?.status, buffered?.statusText, buffered?.headers.get('x-a')]).toEqual([201, 'Made', '1']);
  expect(seen).toEqual({ pulled: 3, cancelled: false });
  expect((await buffered?.text())?.length).toBe(30);
});

test('a streamed body past the cap: undefined, beforeCancel then cancel, the rest never read', async () => {
  const { body, seen } = counted(100, 10);
  const order: string[] = [];
  const result = await readCappedResponse(new Response(body), 25, () =>
    order.push(seen.cancelled ? 'after cancel' : 'before cancel'),
  );
  expect(result).toBeUndefined();
  expect(order).toEqual(['before cancel']);
  expect(seen.cancelled).toBe(true);
  expect(seen.pulled).toBeLessThan(10);
});

test('a content-length over the cap is refused before any byte is read', async () => {
  const { body, seen } = counted(1, 10);
  let told = 0;
  const response = new Response(body, { headers: { 'content-length': '1000' } });
  expect(await readCappedResponse(response, 100, () => (told += 1))).toBeUndefined();
  expect(told).toBe(1);
  expect(seen.cancelled).toBe(true);
});

test.each([204, 205, 304])('a %i answer (a status that has no body) comes back as it is', async (status) => {
  const response = new Response(null, { status });
  expect(await readCappedResponse(response, 10)).toBe(response);
});
