/**
 * The contract every {@link QuotaStore} keeps, run against each implementation
 * (quota-store.memory.test.ts, quota-store.redis.test.ts). Call `quotaStoreContract` in a test
 * file that also calls `useProcessGuard()`.
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from 'keel-mcp/core';
import type { QuotaRate, QuotaStore } from 'keel-mcp/server';
import { within } from '../helpers/guard.js';
import { harnesses, type StoreHarness } from './store-harness.js';

export type QuotaStoreHarness = StoreHarness<QuotaStore>;

export function quotaStoreContract(
  name: string,
  factory: () => Promise<QuotaStoreHarness>,
  options: { keys?: boolean; backend?: boolean } = {},
): void {
  describe(`QuotaStore contract: ${name}`, () => {
    const make = harnesses(factory);
    /** `calls` per `calls * 10` units: one call comes back every 10 units. */
    const rate = (unitMs: number, calls: number, name = 'rate'): QuotaRate => ({
      name,
      calls,
      windowMs: calls * 10 * unitMs,
    });
    const slot = (holder: string, max: number, leaseMs: number) => ({ holder, max, leaseMs });

    it('a rate admits its calls at once, refuses the next with when to retry, and admits it then', async () => {
      const { store, unitMs, advance } = await make();
      const r = rate(unitMs, 3);
      for (let i = 0; i < 3; i++)
        expect(await store.admit({ principal: 'a', rates: [r] })).toEqual({ admitted: true });
      const refused = await store.admit({ principal: 'a', rates: [r] });
      expect(refused).toMatchObject({ admitted: false, limit: 'rate' });
      const wait = (refused as { retryAfterMs: number }).retryAfterMs;
      // One call comes back 10 units after the first was taken; a few ms have passed since.
      expect(wait).toBeGreaterThan(5 * unitMs);
      expect(wait).toBeLessThanOrEqual(10 * unitMs);
      await advance(wait - 3 * unitMs);
      expect(await store.admit({ principal: 'a', rates: [r] })).toMatchObject({ admitted: false });
      await advance(3 * unitMs + 1);
      expect(await store.admit({ principal: 'a', rates: [r] })).toEqual({ admitted: true });
      expect(await store.admit({ principal: 'a', rates: [r] })).toMatchObject({
        admitted: false,
        limit: 'rate',
      });
    });

    it('principals are counted apart: one over its rate does not limit another', async () => {
      const { store, unitMs } = await make();
      const r = rate(unitMs, 1);
      expect(await store.admit({ principal: 'a', rates: [r] })).toEqual({ admitted: true });
      expect(await store.admit({ principal: 'a', rates: [r] })).toMatchObject({ admitted: false });
      expect(await store.admit({ principal: 'b', rates: [r] })).toEqual({ admitted: true });
    });

    it('a call refused by one rate takes nothing from the others', async () => {
      const { store, unitMs } = await make();
      const wide = rate(unitMs, 5, 'rate');
      const narrow = rate(unitMs, 1, 'tool:search');
      expect(await store.admit({ principal: 'a', rates: [wide, narrow] })).toEqual({ admitted: true });
      for (let i = 0; i < 3; i++) {
        expect(await store.admit({ principal: 'a', rates: [wide, narrow] })).toMatchObject({
          admitted: false,
          limit: 'tool:search',
        });
      }
      // 4 calls left in `wide`: the three refusals took none.
      for (let i = 0; i < 4; i++)
        expect(await store.admit({ principal: 'a', rates: [wide] })).toEqual({ admitted: true });
      expect(await store.admit({ principal: 'a', rates: [wide] })).toMatchObject({
        admitted: false,
        limit: 'rate',
      });
    });

    it('concurrency: at most max slots; a refusal has no retry time and takes no call; release frees one', async () => {
      const { store, unitMs } = await make();
      const r = rate(unitMs, 3);
      const lease = 1_000 * unitMs;
      expect(await store.admit({ principal: 'a', rates: [r], slot: slot('h1', 2, lease) })).toEqual({
        admitted: true,
      });
      expect(await store.admit({ principal: 'a', rates: [r], slot: slot('h2', 2, lease) })).toEqual({
        admitted: true,
      });
      const refused = await store.admit({ principal: 'a', rates: [r], slot: slot('h3', 2, lease) });
      expect(refused).toEqual({ admitted: false, limit: 'concurrent' });
      expect(await store.admit({ principal: 'b', rates: [r], slot: slot('h4', 2, lease) })).toEqual({
        admitted: true,
      });
      await store.release('a', 'h1');
      await store.release('a', 'h1'); // twice: harmless
      await store.release('a', 'never-held');
      // The refused h3 took no call: one call is left for h5.
      expect(await store.admit({ principal: 'a', rates: [r], slot: slot('h5', 2, lease) })).toEqual({
        admitted: true,
      });
      expect(await store.admit({ principal: 'a', rates: [r], slot: slot('h6', 2, lease) })).toMatchObject({
        admitted: false,
      });
    });

    it('a lease not renewed lapses (a dead process frees its slot); a renewed one holds', async () => {
      const { store, unitMs, advance } = await make();
      expect(await store.admit({ principal: 'a', rates: [], slot: slot('dead', 1, 4 * unitMs) })).toEqual({
        admitted: true,
      });
      expect(await store.admit({ principal: 'a', rates: [], slot: slot('x', 1, 4 * unitMs) })).toMatchObject({
        admitted: false,
      });
      await advance(5 * unitMs);
      expect(await store.admit({ principal: 'a', rates: [], slot: slot('alive', 1, 4 * unitMs) })).toEqual({
        admitted: true,
      });
      await advance(3 * unitMs);
      await store.renew('a', ['alive', 'dead'], 4 * unitMs);
      await advance(3 * unitMs); // 6 units after the grant: held only because it was renewed
      expect(await store.admit({ principal: 'a', rates: [], slot: slot('y', 1, 4 * unitMs) })).toMatchObject({
        admitted: false,
        limit: 'concurrent',
      });
      await store.release('a', 'alive');
      // Renewing a released holder does not bring it back.
      await store.renew('a', ['alive'], 4 * unitMs);
      expect(await store.admit({ principal: 'a', rates: [], slot: slot('z', 1, 4 * unitMs) })).toEqual({
        admitted: true,
      });
    });

    it('admits racing for the last calls and slots: exactly the limit wins', async () => {
      const { store, unitMs } = await make();
      const r = rate(unitMs, 5);
      const calls = await Promise.all(
        Array.from({ length: 20 }, () => store.admit({ principal: 'a', rates: [r] })),
      );
      expect(calls.filter((d) => d.admitted)).toHaveLength(5);
      const lease = 1_000 * unitMs;
      const slots = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.admit({ principal: 'b', rates: [], slot: slot(`h${i}`, 3, lease) }),
        ),
      );
      expect(slots.filter((d) => d.admitted)).toHaveLength(3);
    });

    if (options.keys)
      it('every key it writes has a TTL, and quiet principals leave no keys behind', async () => {
        const { store, unitMs, keyTtls, advance } = await make();
        await store.admit({ principal: 'a', rates: [rate(unitMs, 2)], slot: slot('h1', 2, 4 * unitMs) });
        await store.admit({
          principal: 'a',
          rates: [rate(unitMs, 1, 'tool:x')],
          slot: slot('h2', 2, 4 * unitMs),
        });
        await store.release('a', 'h2');
        const everyKeyExpires = async () => {
          const ttls = await keyTtls!();
          expect(ttls.size).toBeGreaterThanOrEqual(3);
          for (const [key, ttl] of ttls) expect({ key, ttl: ttl > 0 }).toEqual({ key, ttl: true });
        };
        await everyKeyExpires(); // after admit and release
        await store.renew('a', ['h1'], 4 * unitMs);
        await everyKeyExpires(); // after renew
        await advance(11 * unitMs);
        expect(await keyTtls!()).toEqual(new Map());
      });

    if (options.backend)
      it('backend down: a typed error, no hang; back up: the store works again', async () => {
        const { store, unitMs, backend } = await make();
        await backend!.stop();
        const attempts: (() => Promise<unknown>)[] = [
          () => store.admit({ principal: 'a', rates: [rate(unitMs, 1)], slot: slot('h', 1, 1_000) }),
          () => store.renew('a', ['h'], 1_000),
          () => store.release('a', 'h'),
        ];
        for (const attempt of attempts) {
          const error = await within(attempt(), 10_000, 'call while down').catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StoreUnavailableError);
        }
        await backend!.start();
        expect(await store.admit({ principal: 'a', rates: [rate(unitMs, 1)] })).toEqual({ admitted: true });
      });
  });
}
